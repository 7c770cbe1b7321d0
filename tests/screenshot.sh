#!/bin/sh
# make screenshot: docs/screenshot.png, the README's picture — PCManFM, a real file
# manager, browsing the demo mount (tests/demo.sh on kubesim) on a virtual X display.
#
#   tests/screenshot.sh [ARENAFS_BINARY [OUTPUT.png]]
#
# Needs Debian's xvfb, pcmanfm, imagemagick (import, convert), xdotool, fonts and
# themes ($PACKAGES below): installed here when root, else the apt-get line is
# printed (.ci/deps.sh). Not part of `make test` nor CI: it needs X and changes
# nothing that a test checks. Run as root, the file manager and the mount's reader
# are the user nobody (PCManFM marks a root window with a warning sign), the
# daemon mounting with allow_other for it.
#
# As root it runs in a mount namespace of its own, a tmpfs on /mnt, so that the
# picture's path reads /mnt/arena rather than a temporary folder's name; nothing of
# it is seen outside. Everything it starts (kubesim, arenafs, Xvfb, PCManFM) is
# stopped on every exit.
set -eu

if [ "$(id -u)" -eq 0 ] && [ -z "${ARENAFS_SHOT_NS:-}" ] &&
	unshare --mount --propagation private true 2>/dev/null; then
	ARENAFS_SHOT_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/arenafs}
out=${2:-$root/docs/screenshot.png}
PACKAGES="xvfb pcmanfm imagemagick xdotool fonts-dejavu-core adwaita-icon-theme \
gnome-themes-extra gtk2-engines-pixbuf"
# the README shows it at its width or less: small enough not to be scaled much
WIDTH=1024
HEIGHT=560
JOB=mnist   # the job opened: running, with a TensorBoard and three instances

fail() {
	echo "arenafs screenshot: $*" >&2
	exit 1
}

sh "$root/.ci/deps.sh" $PACKAGES

dir=""
demo_pid=""
xvfb_pid=""
fm_pid=""
as_viewer=""
cleanup() {
	rc=$?
	trap - EXIT INT TERM
	set +e   # a cleanup step that fails must not skip the next
	[ -n "$fm_pid" ] && kill "$fm_pid" 2>/dev/null && wait "$fm_pid" 2>/dev/null
	[ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
	# demo.sh ends when its daemon does, stopping kubesim on its way out
	if [ -n "$demo_pid" ]; then
		if mountpoint -q "$mnt" 2>/dev/null; then
			fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null
		else
			kill "$demo_pid" 2>/dev/null
		fi
		wait "$demo_pid" 2>/dev/null
	fi
	if [ "$rc" -ne 0 ]; then
		for log in demo.log xvfb.log pcmanfm.log; do
			[ -s "$dir/$log" ] && { echo "--- $log" >&2; tail -n 20 "$dir/$log" >&2; }
		done
		echo "arenafs screenshot: failed (files kept in $dir)" >&2
	elif [ -n "$dir" ]; then
		rm -rf "$dir"
	fi
	exit "$rc"
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/arenafs-shot.XXXXXX")
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
home=$dir/home
if [ -n "${ARENAFS_SHOT_NS:-}" ]; then
	mount -t tmpfs -o mode=755,size=16m arenafs-shot /mnt || fail "no tmpfs on /mnt"
	home=/mnt
fi
# the viewer's home: the mount is in it, so its folder tree opens there
mnt=$home/arena
mkdir -p "$home/.config/pcmanfm/default" "$home/.config/libfm"
if [ "$(id -u)" -eq 0 ]; then
	as_viewer="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 755 "$dir"
fi

# waits (up to $1 tenths of a second) until the command that follows succeeds
wait_for() {
	n=$1
	shift
	while ! "$@" 2>/dev/null; do
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
		n=$((n - 1))
	done
}

# The demo, in the background: its cluster, and the daemon mounted at $mnt.
ARENAFS_DEMO_DIR=$dir ARENAFS_DEMO_MNT=$mnt ARENAFS_DEMO_OPTS=${as_viewer:+allow_other} \
	sh "$root/tests/demo.sh" "$bin" >"$dir/demo.log" 2>&1 &
demo_pid=$!
mounted() {
	kill -0 "$demo_pid" 2>/dev/null || fail "the demo stopped"
	[ -f "$mnt/jobs/$JOB/status" ]
}
wait_for 300 mounted || fail "the demo mount did not come up"

# The file manager's settings, kept in the throw-away home: a folder tree beside a
# detailed list, the window filling the screen, no thumbnails (they would read files).
cat >"$home/.config/pcmanfm/default/pcmanfm.conf" <<EOF
[volume]
mount_on_startup=0
mount_removable=0
autorun=0

[ui]
win_width=$WIDTH
win_height=$HEIGHT
splitter_pos=240
side_pane_mode=2
view_mode=list
show_hidden=0
sort_type=ascending
sort_by=name
pathbar_mode_buttons=1
EOF
cat >"$home/.config/libfm/libfm.conf" <<EOF
[config]
thumbnail_local=0

[ui]
show_thumbnail=0
big_icon_size=48
small_icon_size=24
pane_icon_size=24
EOF
cat >"$home/.gtkrc-2.0" <<EOF
gtk-theme-name="Adwaita"
gtk-icon-theme-name="Adwaita"
gtk-font-name="DejaVu Sans 10"
EOF
[ -n "$as_viewer" ] && chown -R 65534:65534 "$home/.config" "$home/.gtkrc-2.0" && chown 65534:65534 "$home"

# A display of its own: Xvfb picks a free number and writes it to fd 3.
Xvfb -displayfd 3 -screen 0 "${WIDTH}x${HEIGHT}x24" -nolisten tcp 3>"$dir/display" \
	>"$dir/xvfb.log" 2>&1 &
xvfb_pid=$!
has_display() { [ -s "$dir/display" ]; }
wait_for 100 has_display || fail "Xvfb did not start"
DISPLAY=:$(cat "$dir/display")
export DISPLAY

HOME=$home XDG_CONFIG_HOME=$home/.config XDG_CACHE_HOME=$home/.cache NO_AT_BRIDGE=1 \
	$as_viewer pcmanfm "$mnt/jobs/$JOB" >"$dir/pcmanfm.log" 2>&1 &
fm_pid=$!
xdotool search --sync --onlyvisible --class pcmanfm >/dev/null 2>&1 ||
	fail "PCManFM showed no window"

# Drawn when two captures a second apart are the same (folders load, icons come).
prev=""
i=0
while :; do
	sleep 1
	import -window root "$dir/shot.png" || fail "import could not capture the display"
	sum=$(convert "$dir/shot.png" rgb:- | md5sum)
	[ "$sum" = "$prev" ] && break
	prev=$sum
	i=$((i + 1))
	[ $i -lt 30 ] || fail "the window never stopped changing"
done
kill -0 "$fm_pid" 2>/dev/null || fail "PCManFM died"

# A palette of 256 colours: a small file, and the text stays sharp.
convert "$dir/shot.png" -strip -colors 256 PNG8:"$out"
echo "arenafs screenshot: $out ($(wc -c <"$out") bytes)"
