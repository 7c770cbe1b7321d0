#!/bin/sh
# make demo: starts kubesim's small lively cluster (tests/kubesim, --demo), mounts
# arenafs on it in the foreground, and shows what to try. Ctrl-C (or
# `fusermount3 -u MOUNTPOINT` from another shell) unmounts and stops the cluster.
#
#   tests/demo.sh [ARENAFS_BINARY]      ARENAFS_DEMO_DIR=DIR picks the work folder
#                                       (default: a new one under $TMPDIR or /tmp)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/arenafs}
dir=${ARENAFS_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/arenafs-demo.XXXXXX")}
mnt=$dir/mnt
mkdir -p "$mnt" "$dir/cluster"

sim_pid=""
cleanup() {
	trap - EXIT INT TERM
	set +e   # a cleanup step that fails must not skip the next
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null || true
	fi
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
	echo "arenafs demo: stopped (files kept in $dir)"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$root/tests/kubesim/kubesim" --dir "$dir/cluster" --demo >"$dir/kubesim.log" 2>&1 &
sim_pid=$!
i=0
while [ ! -f "$dir/cluster/ready" ]; do
	if ! kill -0 "$sim_pid" 2>/dev/null || [ $i -ge 300 ]; then
		echo "arenafs demo: kubesim did not start; its log:" >&2
		cat "$dir/kubesim.log" >&2
		exit 1
	fi
	sleep 0.1
	i=$((i + 1))
done

mkdir -p "$dir/my-mnist"
cat >"$dir/my-mnist/spec.yaml" <<'EOF'
type: tfjob
image: tensorflow/tensorflow:2.15.0-gpu
command: python code/main.py --logdir /training_logs
gpus: 1
workers: 2
tensorboard: true
env: {SIM_RUN_SECONDS: "120"}
EOF

cat <<EOF
arenafs demo: the test cluster's jobs are mounted at

    $mnt

Try, in another shell:

    cd $mnt
    ls jobs/ nodes/
    cat cluster/top
    cat jobs/*/status
    tail -f jobs/\$(ls jobs | head -1)/logs
    cp -r $dir/my-mnist submit/ && cat jobs/my-mnist/status
    cat jobs/my-mnist/tensorboard_url
    rmdir jobs/my-mnist
    KUBECONFIG=$dir/cluster/kubeconfig kubectl get tfjobs,pods

Ctrl-C here unmounts and stops the cluster.

EOF
# Foreground, so that Ctrl-C reaches it; it unmounts on SIGINT.
"$bin" -f -o "kubeconfig=$dir/cluster/kubeconfig" "$mnt" || true
