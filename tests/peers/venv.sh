#!/bin/sh
# Makes (once) the virtual environments of the peer clients the tests run
# beside arenafs, from PyPI, pinned (requirements-NAME.txt): DIR/sdk (the
# Kubeflow Training SDK) and DIR/k8s (the newest kubernetes client), or those
# named as arguments: DIR/jupyter (JupyterLab, Selenium and pandas, for
# tests/integration/test_jupyterlab.py). They cannot share one: the SDK caps
# the client's version. Prints DIR. DIR: $ARENAFS_PEERS_VENV, else
# ~/.cache/arenafs/peers.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=${ARENAFS_PEERS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/arenafs/peers}
# One at a time: test modules on two xdist workers (test_jupyterlab.py and
# test_tree_trash.py both need DIR/jupyter) would otherwise both make it at once.
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
for v in ${*:-sdk k8s}; do
	stamp="$dir/$v/.requirements"
	if ! cmp -s "$here/requirements-$v.txt" "$stamp" 2>/dev/null; then
		rm -rf "$dir/$v"
		/usr/bin/python3 -m venv "$dir/$v" >&2
		"$dir/$v/bin/pip" install -q --disable-pip-version-check -r "$here/requirements-$v.txt" >&2
		cp "$here/requirements-$v.txt" "$stamp"
	fi
done
echo "$dir"
