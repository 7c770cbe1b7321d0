#!/bin/sh
# make deb: builds the Debian binary package arenafs_VERSION_ARCH.deb from a built
# arenafs with dpkg-deb, the way docs/packaging.md explains (why no debian/ folder).
#
#   tests/deb.sh BINARY OUTDIR      writes OUTDIR/arenafs_VERSION_ARCH.deb, prints its path
#
# The files and their places are `make install`'s (PREFIX=/usr, SBINDIR=/sbin), so
# the package and a source install cannot drift apart; this script adds what Debian
# asks of a package on top: a stripped binary, the gzipped man page, copyright and
# changelog, control with the Depends that dpkg-shlibdeps reads off the binary, and
# md5sums. The version is k8s/base/version.h's, the one `arenafs -V` prints.
# Maintainer: $DEBFULLNAME <$DEBEMAIL> (Debian's convention), else git's user, else
# the last commit's author.
# Its test: tests/integration/test_package.py (installs, mounts, removes).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: tests/deb.sh BINARY OUTDIR" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
[ -x "$bin" ] || { echo "deb: $bin is not a built arenafs" >&2; exit 1; }

version=$(sed -n 's/^#define ARENAFS_VERSION "\([^"]*\)"$/\1/p' "$root/k8s/base/version.h")
[ -n "$version" ] || { echo "deb: no ARENAFS_VERSION line in k8s/base/version.h" >&2; exit 1; }
arch=$(dpkg --print-architecture)

name=${DEBFULLNAME:-$(git -C "$root" config user.name 2>/dev/null || true)}
email=${DEBEMAIL:-$(git -C "$root" config user.email 2>/dev/null || true)}
# a clone on a machine with no git identity still has its last commit's author
[ -n "$name" ] || name=$(git -C "$root" log -1 --format=%an 2>/dev/null || true)
[ -n "$email" ] || email=$(git -C "$root" log -1 --format=%ae 2>/dev/null || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	echo "deb: who builds the package? set DEBFULLNAME and DEBEMAIL (the package's Maintainer)" >&2
	exit 1
fi
maintainer="$name <$email>"

# One date for the changelog and the files' times, so that a rebuild of the same
# commit gives the same package (SOURCE_DATE_EPOCH, which dpkg-deb honours too).
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

work=$(mktemp -d "${TMPDIR:-/tmp}/arenafs-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
pkg=$work/pkg

# -o: install the binary given, never rebuild it
make -s -C "$root" -o "$bin" install DESTDIR="$pkg" PREFIX=/usr SBINDIR=/sbin BIN="$bin"

# What dh_strip and dh_compress would do: debug symbols out of the binary (Debian
# ships them in a -dbgsym package, which this one does not build), man pages gzipped
# without a name or time in the header.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$pkg/usr/bin/arenafs"
gzip -9n "$pkg/usr/share/man/man1/arenafs.1"
for link in "$pkg"/usr/share/man/man8/*.8; do
	rm "$link"
	ln -s ../man1/arenafs.1.gz "$link.gz"
done
doc=$pkg/usr/share/doc/arenafs
printf '%s\n' "arenafs ($version) unstable; urgency=medium" "" \
	"  * Built from the arenafs sources by make deb; the changes are the" \
	"    project's git history." "" \
	" -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n >"$doc/changelog.gz"
first=$(git -C "$root" log --reverse --format=%cd --date=format:%Y 2>/dev/null | head -1)
years=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
[ -n "$first" ] && [ "$first" != "$years" ] && years=$first-$years
cat >"$doc/copyright" <<EOF
arenafs, a FUSE filesystem showing a Kubernetes cluster's Kubeflow training jobs.

Copyright $years the arenafs authors, whom the project's git history names.
Packaged by: $maintainer

License: none chosen yet: the arenafs sources carry no license. Ask the
authors before you redistribute this package.
EOF
chmod 644 "$doc/copyright"

# dpkg-shlibdeps reads the libraries' symbols files to give each its minimal
# version; it wants a debian/control, which a source tree with no debian/ folder
# has not: a throwaway one here. fuse3 is not a library arenafs links: it brings
# fusermount3, which libfuse runs to mount for a user, and mount.fuse3.
mkdir -p "$work/src/debian"
printf 'Source: arenafs\n\nPackage: arenafs\nArchitecture: any\n' >"$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e"$pkg/usr/bin/arenafs" 2>"$work/shlibdeps.err") || {
	cat "$work/shlibdeps.err" >&2
	exit 1
}
shlibs=${shlibs#shlibs:Depends=}
[ -n "$shlibs" ] || { echo "deb: dpkg-shlibdeps found no library" >&2; exit 1; }

mkdir -p "$pkg/DEBIAN"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f -print | sed 's#^\./##' | LC_ALL=C sort |
	xargs md5sum) >"$pkg/DEBIAN/md5sums"
size=$(du -k -s --exclude=DEBIAN "$pkg" | cut -f1)
cat >"$pkg/DEBIAN/control" <<EOF
Package: arenafs
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $shlibs, fuse3
Section: utils
Priority: optional
Description: Kubernetes training jobs as a directory tree (FUSE)
 arenafs mounts a Kubernetes cluster running Kubeflow training jobs as a
 directory tree: every job a folder with its status, logs and spec as files.
 What the Arena command line does is done with ls, cat, tail -f, cp and
 rmdir: copying a folder with a spec.yaml into submit/ launches a job,
 removing a job's folder deletes it.
 .
 It reads the kubeconfig as kubectl does, mounts with mount -t fuse.arenafs
 or an fstab line, and comes with a systemd user unit.
EOF
chmod 644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/arenafs_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "$deb"
