#!/bin/sh
# make demo: starts kubesim's small lively cluster (tests/kubesim, --demo), mounts
# arenafs on it in the foreground, and shows what to try. Ctrl-C (or
# `fusermount3 -u MOUNTPOINT` from another shell) unmounts and stops the cluster.
# make demo CLUSTER=real: the real cluster of tests/cluster/ instead (its
# --mpi v2beta1 profile, with Prometheus and the stand-in GPU exporter), with a
# few jobs of every outcome made by the real training-operator, a TrainJob run
# by Kubeflow Trainer v2 whose "training script" (tests/cluster/report) POSTs
# its progress to Trainer's real status server and keeps its GPUs busy in the
# exporter, and an MPIJob v2beta1 run by the MPI operator.
#
#   tests/demo.sh [ARENAFS_BINARY]      ARENAFS_DEMO_DIR=DIR picks the work folder
#                                       (default: a new one under $TMPDIR or /tmp);
#                                       ARENAFS_DEMO_CLUSTER=real the real cluster;
#                                       ARENAFS_DEMO_MNT=DIR the mount point (default
#                                       DIR/mnt), ARENAFS_DEMO_OPTS=OPT,... more mount
#                                       options (tests/screenshot.sh: allow_other)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/arenafs}
dir=${ARENAFS_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/arenafs-demo.XXXXXX")}
mnt=${ARENAFS_DEMO_MNT:-$dir/mnt}
mkdir -p "$mnt" "$dir/cluster"

sim_pid=""
report_pid=""
real=""
[ "${ARENAFS_DEMO_CLUSTER:-kubesim}" = real ] && real=1
cleanup() {
	trap - EXIT INT TERM
	set +e   # a cleanup step that fails must not skip the next
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null || true
	fi
	[ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
	[ -n "$report_pid" ] && kill "$report_pid" 2>/dev/null && wait "$report_pid" 2>/dev/null
	[ -n "$real" ] && "$root/tests/cluster/down" "$dir/cluster"
	echo "arenafs demo: stopped (files kept in $dir)"
}
trap cleanup EXIT
# Ctrl-C is how the demo ends: a clean stop, which make must not call an error
trap 'exit 0' INT
trap 'exit 143' TERM

# Creates what stdin says, in the demo's cluster.
create() {
	KUBECONFIG=$dir/cluster/kubeconfig kubectl create -f - >/dev/null
}

# The demo's TFJob, two workers of 2 GPUs each: its name, more of its metadata
# (flow mapping items, each after a comma; or ""), its workers' env (a flow list).
tfjob() {
	cat <<EOF
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: $1$2}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/tensorflow:2.15.0-gpu
            command: [python, train.py]
            env: $3
            resources: {limits: {nvidia.com/gpu: 2}}
EOF
}

if [ -n "$real" ]; then
	echo "arenafs demo: starting the real cluster (tests/cluster/up; minutes the first time)"
	# the MPI operator's profile: the MPIJob below is today's v2beta1
	if ! "$root/tests/cluster/up" "$dir/cluster" --mpi v2beta1 --monitoring \
		>"$dir/cluster.log" 2>&1; then
		echo "arenafs demo: the real cluster did not start; its log:" >&2
		cat "$dir/cluster.log" >&2
		exit 1
	fi
	# a few jobs the real operator runs: one long, one that fails, one that ends
	for j in resnet:forever:0 broken:20s:1 mnist:30s:0; do
		name=${j%%:*}; rest=${j#*:}; run=${rest%%:*}; code=${rest#*:}
		tfjob "$name" "" "[{name: KWOK_RUN, value: \"$run\"}, {name: KWOK_EXIT, value: \"$code\"}]" |
			create
	done
	# today's Kubeflow: a TrainJob (Trainer v2 on a JobSet) and an MPIJob
	# v2beta1 (the MPI operator: launcher Job and two workers), both running on
	create <<EOF
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: llm}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    image: pytorch/pytorch:2.2.0-cuda12.1-cudnn8-runtime
    command: [torchrun, train.py]
    numNodes: 2
    env: [{name: KWOK_RUN, value: forever}]
    resourcesPerNode: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: horovod}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: launcher
            image: horovod/horovod:0.28.1
            command: [horovodrun, -np, "2", python, train.py]
            env: [{name: KWOK_RUN, value: forever}]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: worker
            image: horovod/horovod:0.28.1
            env: [{name: KWOK_RUN, value: forever}]
            resources: {limits: {nvidia.com/gpu: 1}}
EOF
	# the TrainJob's training script: a report every 5 s through Trainer's status
	# server, and the GPUs of the running jobs busy in Prometheus
	"$root/tests/cluster/report" "$dir/cluster" llm >"$dir/report.log" 2>&1 &
	report_pid=$!
	trainjob=llm
else
	"$root/tests/kubesim/kubesim" --dir "$dir/cluster" --demo --kueue >"$dir/kubesim.log" 2>&1 &
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
	trainjob=llm-pretrain   # kubesim's demo reports for it every 5 s
fi

# Kueue's queue (ClusterQueue cluster-queue: 8 GPUs; LocalQueue user-queue): two
# jobs of 4 GPUs take its quota, the third waits in line (jobs/waiting/why)
for name in first second waiting; do
	tfjob "$name" ", labels: {kueue.x-k8s.io/queue-name: user-queue}" \
		'[{name: KWOK_RUN, value: forever}, {name: SIM_RUN_SECONDS, value: "100000"}]' | create
	sleep 1
done

cat <<EOF
arenafs demo: the test cluster's jobs are mounted at

    $mnt

Try, in another shell:

    cd $mnt
    ls jobs/ nodes/
    cat cluster/top
    cat jobs/*/status
    tail -f jobs/\$(ls jobs | head -1)/logs
    cp -r $root/docs/examples/tf-mnist submit/ && cat jobs/tf-mnist/status
    cat jobs/tf-mnist/tensorboard_url
    rmdir jobs/tf-mnist
    ls $root/docs/examples/       # more jobs to copy, one of each kind
    cat runtimes                  # Kubeflow Trainer's runtimes: what a trainjob can name
    cat cluster/top-job           # arena top job, then each job's PROGRESS and GPU(DutyCycle)
    tail -f jobs/$trainjob/progress   # a TrainJob's reports, a line each as it comes
    watch cat jobs/$trainjob/metrics  # its last metrics: name value
    cat jobs/*/gpus               # GPUs held, their duty cycle and memory (Prometheus)
    cat jobs/waiting/why          # a job waiting in a Kueue queue: its place in line, why
    cat cluster/queues            # the queue: quota of each resource, use, jobs waiting
    KUBECONFIG=$dir/cluster/kubeconfig kubectl get tfjobs,pods

Ctrl-C here unmounts and stops the cluster.

EOF
# Foreground, so that Ctrl-C reaches it; it unmounts on SIGINT.
"$bin" -f -o "kubeconfig=$dir/cluster/kubeconfig${ARENAFS_DEMO_OPTS:+,$ARENAFS_DEMO_OPTS}" "$mnt" || true
