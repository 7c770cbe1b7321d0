// Holds, pinned, Go modules whose sources ship CRDs that no component of the
// cluster installs: Kubeflow Trainer's TrainJob and KubeRay's RayJob. Nothing
// is built from it; tests/integration/test_tree_arena_kinds.py applies the CRD
// files (with the ETJob's from Arena's module, tests/cluster/arena, and the
// stand-ins in stand-ins.yaml for the CRDs no Go module ships).
module arenafs.test/cluster/crds

go 1.26.0

require (
	github.com/kubeflow/trainer/v2 v2.0.0
	github.com/ray-project/kuberay/ray-operator v1.2.2
)
