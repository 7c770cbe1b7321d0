"""GPU figures from Prometheus in the tree (docs/tree.md, "GPU figures"):
instances/POD/gpus gains each GPU's duty cycle and memory, jobs/NAME/gpus a line
summing them, jobs/NAME/info the GPUs: block of `arena get -g`, nodes/NODE/info
the figures of `arena top node -d`, and why names GPUs idle for 10 minutes; found as Arena finds Prometheus (a Service labelled
kubernetes.io/service-name=prometheus-server, through the API server's service
proxy) and asked once for every pod. On kubesim, its own Prometheus
(tests/kubesim/kubesim_lib/prometheus.py) answers with the figures the test
sets; the real cluster's (Prometheus scraping the stand-in exporter) is
test_real_gpu_metrics.py's. Without a Prometheus the files say so in words and
cluster/health stays ok."""

import calendar
import json
import os
import re
import time

from helpers import wait_until

POD = "busy-worker-0"
NO_PROMETHEUS = ("no GPU metrics: no Prometheus found (looked for a Service labelled "
                 "kubernetes.io/service-name=prometheus-admin, "
                 "kubernetes.io/service-name=prometheus-server or "
                 "kubernetes.io/name=Prometheus, in any namespace; or the mount option "
                 "prometheus=URL)\n")


def tfjob(ns):
    c = {"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0-gpu",
         "command": ["python", "train.py"], "resources": {"limits": {"nvidia.com/gpu": "2"}}}
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": "busy", "namespace": ns},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": 1, "restartPolicy": "Never",
                "template": {"spec": {"containers": [c]}}}}}}


def prometheus_service():
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "prometheus-server", "namespace": "monitoring",
                         "labels": {"kubernetes.io/service-name": "prometheus-server"}},
            "spec": {"ports": [{"name": "http", "port": 9090}]}}


def running(c, m):
    c.kubectl("create", "-f", "-", input=json.dumps(tfjob(c.namespace)))
    wait_until(lambda: os.path.exists(m.path("jobs", "busy", "instances", POD)) and
               m.read("jobs", "busy", "instances", POD, "status") == "Running\n",
               timeout=60, message="busy's worker Running")


def start_prometheus(c):
    c.kubectl("create", "namespace", "monitoring")
    c.kubectl("create", "-f", "-", input=json.dumps(prometheus_service()))


def test_without_prometheus_the_files_say_so_and_health_stays_ok(kubesim, arenafs):
    c = kubesim("--nodes", "2", "--gpus", "8")
    m = arenafs(c)
    running(c, m)
    pod = m.read("jobs", "busy", "instances", POD, "gpus")
    job = m.read("jobs", "busy", "gpus")
    print("instances/%s/gpus:\n%sjobs/busy/gpus:\n%s" % (POD, pod, job))
    assert pod == "2\n" + NO_PROMETHEUS
    assert job == "2/2\n" + NO_PROMETHEUS
    # info's GPUs: block: Arena's N/A cells, and why
    rows, tail = gpus_block(m.read("jobs", "busy", "info"))
    assert rows == [[POD, host_ip(c), "2", "N/A", "N/A", "N/A"]], rows
    assert tail == ["Allocated/Requested GPUs of Job: 2/2", NO_PROMETHEUS.strip()], tail
    # nodes/NODE/info: arena top node -d without figures, and why
    node = m.read("jobs", "busy", "instances", POD, "node").strip()
    info = m.read("nodes", node, "info")
    print("nodes/%s/info:\n%s" % (node, info))
    assert info.endswith("GPU Summary:\n  Total GPUs:     8\n  Allocated GPUs: 2\n"
                         "  Unhealthy GPUs: 0\n" + NO_PROMETHEUS), info
    assert "GPU(Allocated)" not in info
    assert m.read("cluster", "health").startswith("ok")
    # Prometheus is looked for among the cached Services: without one, these reads ask
    # the cluster nothing (waited out first, so that the snapshot is stale)
    time.sleep(5.5)
    before = c.stats()["total"]
    for f in (("jobs", "busy", "info"), ("jobs", "busy", "why"), ("jobs", "busy", "gpus"),
              ("nodes", node, "info")):
        m.read(*f)
    assert c.stats()["total"] == before, c.stats()["requests"]


def cells(line):
    return re.split(r" {2,}", line.strip())


def host_ip(c):
    return c.kubectl_json("get", "pod", POD)["status"]["hostIP"]


def gpus_block(info):
    """(rows, lines after them) of info's GPUs: block, each row's cells."""
    block = info.split("\nGPUs:\n", 1)[1].split("\n\n")
    lines = block[0].splitlines()
    assert cells(lines[0]) == ["INSTANCE", "NODE(IP)", "GPU(Requested)", "GPU(IndexId)",
                               "GPU(DutyCycle)", "GPU Memory(Used/Total)"], lines
    return [cells(l) for l in lines[2:]], [l.strip() for l in block[1].splitlines()]


def test_duty_cycle_and_memory_per_gpu_and_per_job(kubesim, arenafs):
    c = kubesim("--nodes", "2", "--gpus", "8")
    m = arenafs(c)
    running(c, m)
    start_prometheus(c)
    c.set_gpus({"default/" + POD: [
        {"util": 87, "memory_used_mib": 5120, "memory_total_mib": 16384},
        {"util": 12.5, "memory_used_mib": 1024, "memory_total_mib": 16384}]})
    want_pod = ("2\n"
                "GPU(DeviceIndex)  GPU(DutyCycle)  GPU_MEMORY(Used/Total)\n"
                "0                 87.0%           5120.0/16384.0(MiB)\n"
                "1                 12.5%           1024.0/16384.0(MiB)\n")
    want_job = ("2/2\nGPU(DutyCycle) 49.8% (mean of 2 GPUs of 1 instance), "
                "GPU_MEMORY(Used/Total) 6144.0/32768.0(MiB)\n")
    path = ("jobs", "busy", "instances", POD, "gpus")
    # the snapshot of "no Prometheus" lasts a few seconds: the event is Prometheus's answer
    wait_until(lambda: m.read(*path) == want_pod, timeout=30,
               message="instances/%s/gpus with Prometheus's figures" % POD)
    print("instances/%s/gpus:\n%s" % (POD, m.read(*path)))
    assert m.read("jobs", "busy", "gpus") == want_job
    assert m.read("cluster", "health").startswith("ok")

    # info: arena get -g's GPUs: block, a row per GPU
    info = m.read("jobs", "busy", "info")
    print("jobs/busy/info:\n%s" % info)
    rows, tail = gpus_block(info)
    assert rows == [[POD, host_ip(c), "2", "0", "87.0%", "5120.0/16384.0(MiB)"],
                    ["1", "12.5%", "1024.0/16384.0(MiB)"]], rows
    assert tail == ["Allocated/Requested GPUs of Job: 2/2"], tail
    # nodes/NODE/info: arena top node -d with figures: every GPU of the node, the pod's
    # two allocated, the others idle
    node = m.read("jobs", "busy", "instances", POD, "node").strip()
    info = m.read("nodes", node, "info")
    print("nodes/%s/info:\n%s" % (node, info))
    instances = info.split("Instances:\n", 1)[1].split("GPUs:\n", 1)[0].splitlines()
    assert cells(instances[0]) == ["NAMESPACE", "NAME", "STATUS", "GPU(Requested)",
                                   "GPU(Allocated)"]
    assert cells(instances[2]) == ["default", POD, "Running", "2", "gpu0,gpu1"]
    devices = info.split("GPUs:\n", 1)[1].split("GPU Summary:\n")[0].splitlines()
    assert cells(devices[0]) == ["INDEX", "MEMORY(Total)", "MEMORY(Allocated)", "MEMORY(Used)",
                                 "DUTY_CYCLE"]
    assert [cells(l) for l in devices[2:]] == \
        [["0", "16.0 GiB", "16.0 GiB", "5.0 GiB", "87.0%"],
         ["1", "16.0 GiB", "16.0 GiB", "1.0 GiB", "12.5%"]] + \
        [[str(i), "16.0 GiB", "0.0 GiB", "0.0 GiB", "0.0%"] for i in range(2, 8)]
    assert info.endswith("GPU Summary:\n"
                         "  Total GPUs:           8\n"
                         "  Allocated GPUs:       2\n"
                         "  Unhealthy GPUs:       0\n"
                         "  Total GPU Memory:     128.0 GiB\n"
                         "  Allocated GPU Memory: 32.0 GiB\n"
                         "  Used GPU Memory:      6.0 GiB\n"), info

    # many reads share one query: at most one per GPU_METRICS_TTL_S (5 s) of reading;
    # waited out first, so that the reads below must ask again
    time.sleep(5.5)
    before = c.stats()["requests"].get("get services/proxy", 0)
    t0 = time.monotonic()
    for _ in range(50):
        m.read(*path)
        m.read("jobs", "busy", "gpus")
    took = time.monotonic() - t0
    queries = c.stats()["requests"].get("get services/proxy", 0) - before
    print("100 reads in %.2f s: %d Prometheus queries" % (took, queries))
    assert 1 <= queries <= 1 + int(took / 5), (queries, took)

    # DCGM's family alone (the GPU Operator's exporter): the same figures
    c.set_gpus({"default/" + POD: [
        {"util": 30, "memory_used_mib": 2048, "memory_total_mib": 40960},
        {"util": 50, "memory_used_mib": 0, "memory_total_mib": 40960}]}, families=["dcgm"])
    want_pod = ("2\n"
                "GPU(DeviceIndex)  GPU(DutyCycle)  GPU_MEMORY(Used/Total)\n"
                "0                 30.0%           2048.0/40960.0(MiB)\n"
                "1                 50.0%           0.0/40960.0(MiB)\n")
    wait_until(lambda: m.read(*path) == want_pod, timeout=30, message="DCGM's figures")
    assert m.read("jobs", "busy", "gpus") == (
        "2/2\nGPU(DutyCycle) 40.0% (mean of 2 GPUs of 1 instance), "
        "GPU_MEMORY(Used/Total) 2048.0/81920.0(MiB)\n")

    # Arena's family alone
    c.set_gpus({"default/" + POD: [
        {"util": 99, "memory_used_mib": 8000, "memory_total_mib": 16384},
        {"util": 1, "memory_used_mib": 100, "memory_total_mib": 16384}]}, families=["arena"])
    wait_until(lambda: "99.0%" in m.read(*path), timeout=30, message="Arena's figures")
    assert m.read(*path).endswith("1                 1.0%            100.0/16384.0(MiB)\n")


def test_a_prometheus_named_by_the_mount_option(kubesim, arenafs):
    """-o prometheus=URL: asked there, whatever Services the cluster has; a URL that
    does not answer is said so."""
    c = kubesim("--nodes", "2", "--gpus", "8")
    start_prometheus(c)
    c.set_gpus({"default/" + POD: [
        {"util": 64, "memory_used_mib": 300, "memory_total_mib": 16384},
        {"util": 32, "memory_used_mib": 200, "memory_total_mib": 16384}]})
    # kubesim's Prometheus at a URL of its own (the proxy's path), as a user names one
    url = c.url + "/api/v1/namespaces/monitoring/services/prometheus-server:9090/proxy"
    m = arenafs(c, "prometheus=" + url)
    running(c, m)
    path = ("jobs", "busy", "instances", POD, "gpus")
    wait_until(lambda: "64.0%" in m.read(*path), timeout=30, message="the URL's figures")
    print("instances/%s/gpus:\n%s" % (POD, m.read(*path)))
    assert m.read("jobs", "busy", "gpus") == (
        "2/2\nGPU(DutyCycle) 48.0% (mean of 2 GPUs of 1 instance), "
        "GPU_MEMORY(Used/Total) 500.0/32768.0(MiB)\n")

    bad = arenafs(c, "prometheus=http://127.0.0.1:9")
    text = bad.read(*path)
    print("with prometheus=http://127.0.0.1:9:\n%s" % text)
    assert text.startswith("2\nno GPU metrics: Prometheus (http://127.0.0.1:9) did not answer: ")
    assert text.count("\n") == 2
    assert bad.read("cluster", "health").startswith("ok")


def test_why_names_gpus_idle_for_ten_minutes(kubesim, arenafs):
    """A running job whose GPUs stayed at 0 % the whole of the last 10 minutes: why
    (and info's first line) says so; a busy one says nothing of its GPUs. kubesim's
    fleet has jobs running for longer than the window; the test says how long the
    figures have held (held_for), as a Prometheus's history would."""
    c = kubesim("--nodes", "4", "--gpus", "8", "--jobs", "20")
    start_prometheus(c)
    pods = c.kubectl_json("get", "pods")["items"]
    started = {}
    for p in pods:
        if p["status"].get("phase") == "Running" and p["status"].get("startTime"):
            job = p["metadata"]["labels"].get("training.kubeflow.org/job-name")
            t = calendar.timegm(time.strptime(p["status"]["startTime"], "%Y-%m-%dT%H:%M:%SZ"))
            started.setdefault(job, []).append((p["metadata"]["name"], t))
    old = sorted(j for j, ps in started.items() if all(time.time() - t > 700 for _, t in ps))
    assert len(old) >= 2, "kubesim's fleet has two jobs running for over 10m: %s" % started
    idle, busy = old[0], old[1]
    c.set_gpus({"default/" + name: [{"util": 0, "memory_used_mib": 900}]
                for name, _ in started[idle]}, held_for=900)
    m = arenafs(c)
    n = len(started[idle])
    want = "; but its %d GPUs have been idle (0%% duty cycle) for at least 10m.\n" % n
    line = wait_until(lambda: (lambda t: t if t.endswith(want) else None)(
        m.read("jobs", idle, "why")), timeout=30, message="why of %s to name idle GPUs" % idle)
    print("jobs/%s/why: %s" % (idle, line))
    assert line.startswith("Running since "), line
    assert m.read("jobs", idle, "info").startswith(line)
    other = m.read("jobs", busy, "why")
    print("jobs/%s/why: %s" % (busy, other))
    assert other.startswith("Running since ") and "idle" not in other, other

    # a GPU busy 3 minutes ago is not idle: 80 % for 15 minutes, then 0 % for 2
    c.set_gpus({"default/" + name: [{"util": 80}] for name, _ in started[idle]}, held_for=900)
    c.set_gpus({"default/" + name: [{"util": 0}] for name, _ in started[idle]}, held_for=120)
    wait_until(lambda: "idle" not in m.read("jobs", idle, "why"), timeout=30,
               message="why of %s to stop naming idle GPUs" % idle)
