"""Node objects as a kubelet registers them (v1.32, containerd, NVIDIA device
plugin): labels (hostname, os, arch, node-role.kubernetes.io/worker, the GPU
feature-discovery labels, accelerator=a100), Ready and the pressure
conditions, InternalIP and Hostname addresses, the ten nodeInfo fields the
python client requires, capacity/allocatable for cpu, memory, pods,
ephemeral-storage, hugepages and nvidia.com/gpu (GPU nodes only), podCIDR.
"""

from . import util

KUBELET_VERSION = "v1.32.0"
GPU_PRODUCT = "NVIDIA-A100-SXM4-80GB"


def _uuidish(*parts):
    h = util.digest(*parts)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:32])


def node_object(name, index, gpus, seed=0, cpu="64", memory_ki=528_000_000, created=None):
    """Node `name`, the index-th of the cluster (it picks its addresses)."""
    labels = {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux", "node-role.kubernetes.io/worker": "",
    }
    capacity = {"cpu": cpu, "ephemeral-storage": "1055762868Ki", "hugepages-1Gi": "0",
                "hugepages-2Mi": "0", "memory": "%dKi" % memory_ki, "pods": "110"}
    allocatable = {"cpu": cpu, "ephemeral-storage": "972991057538", "hugepages-1Gi": "0",
                   "hugepages-2Mi": "0", "memory": "%dKi" % (memory_ki - 102400), "pods": "110"}
    if gpus:
        labels.update({"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": GPU_PRODUCT,
                       "nvidia.com/gpu.count": str(gpus), "nvidia.com/gpu.memory": "81920",
                       "accelerator": "a100"})
        capacity[util.GPU] = str(gpus)
        allocatable[util.GPU] = str(gpus)
    ip = "10.0.%d.%d" % (index // 250, index % 250 + 4)
    cidr = "10.%d.%d.0/24" % (64 + index // 256, index % 256)
    now = created or util.rfc3339()
    conds = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": labels, "creationTimestamp": now,
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr], "providerID": "kubesim://" + name},
        "status": {
            "capacity": capacity, "allocatable": allocatable,
            "conditions": [{"type": t, "status": s, "reason": r, "message": m,
                            "lastHeartbeatTime": now, "lastTransitionTime": now}
                           for t, s, r, m in conds],
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64", "bootID": _uuidish(seed, "boot", name),
                "containerRuntimeVersion": "containerd://1.7.22",
                "kernelVersion": "5.15.0-119-generic", "kubeProxyVersion": KUBELET_VERSION,
                "kubeletVersion": KUBELET_VERSION,
                "machineID": util.digest(seed, "machine", name)[:32],
                "operatingSystem": "linux", "osImage": "Ubuntu 22.04.4 LTS",
                "systemUUID": _uuidish(seed, "system", name)},
        },
    }


def cluster_nodes(n, gpus, cpu_nodes=0, seed=0):
    """node-0 … node-(n-1) with `gpus` GPUs each, then cpu-node-0 … CPU-only."""
    out = [node_object("node-%d" % i, i, gpus, seed) for i in range(n)]
    out += [node_object("cpu-node-%d" % i, n + i, 0, seed, cpu="32", memory_ki=131_000_000)
            for i in range(cpu_nodes)]
    return out
