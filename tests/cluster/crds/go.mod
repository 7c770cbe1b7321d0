// Holds, pinned, a Go module whose source ships a CRD that no component of
// the cluster installs: KubeRay's RayJob (Trainer's TrainJob is up's now:
// ../kubeflow). Nothing is built from it; tests/integration/test_tree_arena_kinds.py applies the CRD
// files (with the ETJob's from Arena's module, tests/cluster/arena, and the
// stand-ins in stand-ins.yaml for the CRDs no Go module ships).
module arenafs.test/cluster/crds

go 1.26.0

require github.com/ray-project/kuberay/ray-operator v1.2.2
