"""The simulated training operator (kubeflow.org/v1 kinds), mpi-operator
v2beta1 and Kubeflow Trainer, against an in-process store."""

import json

from sim_helpers import Cluster, env, tfjob

TF = "tfjobs.kubeflow.org"
PT = "pytorchjobs.kubeflow.org"


def conds(obj):
    return [(c["type"], c["status"], c["reason"], c["message"]) for c in obj["status"]["conditions"]]


def test_tfjob_goes_created_running_succeeded_like_training_operator():
    with Cluster(speed=20) as c:
        c.store.create(TF, tfjob("mnist", workers=2, chief=1, SIM_RUN_SECONDS=8))
        j = c.wait_condition(TF, "mnist", "Running")
        assert conds(j) == [
            ("Created", "True", "TFJobCreated", "TFJob mnist is created."),
            ("Running", "True", "TFJobRunning", "TFJob default/mnist is running.")]
        # Running is the chief's running, as the training-operator says it; the
        # workers' pods start one by one, each counted as it does (not all at once)
        rs = j["status"]["replicaStatuses"]
        assert rs["Chief"] == {"active": 1} and 1 <= rs["Worker"].get("active", 0) <= 2, rs
        assert j["status"]["startTime"]
        j = c.wait_condition(TF, "mnist", "Succeeded")
        assert conds(j) == [
            ("Created", "True", "TFJobCreated", "TFJob mnist is created."),
            ("Running", "False", "TFJobRunning", "TFJob default/mnist is running."),
            ("Succeeded", "True", "TFJobSucceeded", "TFJob default/mnist successfully completed.")]
        assert j["status"]["completionTime"] >= j["status"]["startTime"]
        c.wait("replica statuses settled", lambda: c.get(TF, "mnist")["status"]["replicaStatuses"] ==
               {"Chief": {"succeeded": 1}, "Worker": {"succeeded": 2}})
        ev = {e["reason"]: e for e in c.events("mnist")}
        assert ev["TFJobSucceeded"]["message"] == "TFJob default/mnist successfully completed."
        assert ev["TFJobSucceeded"]["source"] == {"component": "tfjob-controller"}
        created = sorted(e["message"] for e in c.events("mnist", "SuccessfulCreatePod"))
        assert created == ["Created pod: mnist-chief-0", "Created pod: mnist-worker-0",
                           "Created pod: mnist-worker-1"]


def test_pods_and_services_carry_operator_labels_owner_and_tf_config():
    with Cluster() as c:
        job = c.store.create(TF, tfjob("mnist", workers=2, ps=1, SIM_RUN_SECONDS=100))
        c.wait("3 pods", lambda: len(c.pods("mnist-")) == 3)
        w0 = c.get("pods", "mnist-worker-0")
        assert w0["metadata"]["labels"] == {
            "training.kubeflow.org/operator-name": "tfjob-controller",
            "training.kubeflow.org/job-name": "mnist",
            "training.kubeflow.org/replica-type": "worker",
            "training.kubeflow.org/replica-index": "0",
            "training.kubeflow.org/job-role": "master"}
        assert "training.kubeflow.org/job-role" not in c.get("pods", "mnist-ps-0")["metadata"]["labels"]
        assert w0["metadata"]["ownerReferences"] == [{
            "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "name": "mnist",
            "uid": job["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]
        tf = json.loads([e["value"] for e in w0["spec"]["containers"][0]["env"] if e["name"] == "TF_CONFIG"][0])
        assert tf == {"cluster": {"ps": ["mnist-ps-0.default.svc:2222"],
                                  "worker": ["mnist-worker-0.default.svc:2222",
                                             "mnist-worker-1.default.svc:2222"]},
                      "task": {"type": "worker", "index": 0}, "environment": "cloud"}
        assert w0["spec"]["restartPolicy"] == "Never"
        svc = c.wait("service", lambda: c.get("services", "mnist-worker-1"))
        assert svc["spec"]["clusterIP"] == "None"
        assert svc["spec"]["selector"]["training.kubeflow.org/replica-index"] == "1"
        assert svc["spec"]["ports"] == [{"name": "tfjob-port", "port": 2222, "protocol": "TCP",
                                         "targetPort": 2222}]
        assert svc["metadata"]["ownerReferences"][0]["uid"] == job["metadata"]["uid"]


def test_failing_worker_fails_tfjob():
    with Cluster() as c:
        c.store.create(TF, tfjob("bad", workers=2, SIM_RUN_SECONDS=3, SIM_EXIT_CODE=1))
        j = c.wait_condition(TF, "bad", "Failed")
        failed = [x for x in conds(j) if x[0] == "Failed"][0]
        assert failed[2] == "TFJobFailed"
        assert failed[3] in ("TFJob default/bad has failed because 1 Worker replica(s) failed.",
                             "TFJob default/bad has failed because 2 Worker replica(s) failed.")
        running = [x for x in conds(j) if x[0] == "Running"]
        assert running and running[0][1] == "False"
        assert j["status"]["completionTime"]
        ev = c.events("bad", "ExitedWithCode")
        assert any(e["message"] == "Pod: default.bad-worker-0 exited with code 1" for e in ev)


def test_clean_pod_policy_running_deletes_running_pods_when_done():
    with Cluster() as c:
        job = tfjob("cleanup", workers=1, ps=1, run_policy={"cleanPodPolicy": "Running"})
        job["spec"]["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["env"] = env(SIM_RUN_SECONDS=3)
        job["spec"]["tfReplicaSpecs"]["PS"]["template"]["spec"]["containers"][0]["env"] = env(SIM_RUN_SECONDS=10000)
        c.store.create(TF, job)
        c.wait_condition(TF, "cleanup", "Succeeded")
        c.wait_gone("pods", "cleanup-ps-0")
        c.wait_gone("services", "cleanup-ps-0")
        assert c.get("pods", "cleanup-worker-0")["status"]["phase"] == "Succeeded"
        assert c.get("services", "cleanup-worker-0") is not None
        msgs = [e["message"] for e in c.events("cleanup", "SuccessfulDeletePod")]
        assert msgs == ["Deleted pod: cleanup-ps-0"]
        assert c.events("cleanup-ps-0", "Killing")


def test_ttl_seconds_after_finished_deletes_the_job():
    with Cluster() as c:
        c.store.create(TF, tfjob("short", workers=1, run_policy={"ttlSecondsAfterFinished": 60},
                                 SIM_RUN_SECONDS=2))
        j = c.wait_condition(TF, "short", "Succeeded")
        c.wait_gone(TF, "short")
        assert j["status"]["completionTime"]
        assert c.events("short", "SuccessfulDeleteJob")[0]["message"] == "Deleted job: short"


def test_on_failure_backoff_limit_fails_job_and_deletes_pods():
    with Cluster() as c:
        job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
               "metadata": {"name": "flaky", "namespace": "default"},
               "spec": {"runPolicy": {"backoffLimit": 2}, "pytorchReplicaSpecs": {"Master": {
                   "replicas": 1, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [{
                       "name": "pytorch", "image": "pytorch/pytorch:2.5.0",
                       "env": env(SIM_RUN_SECONDS=1, SIM_EXIT_CODE=1)}]}}}}}}
        c.store.create(PT, job)
        j = c.wait_condition(PT, "flaky", "Failed")
        failed = [x for x in conds(j) if x[0] == "Failed"][0]
        assert failed[2:] == ("PyTorchJobFailed",
                              "Job flaky has failed because it has reached the specified backoff limit")
        c.wait_gone("pods", "flaky-master-0")


def test_exit_code_policy_restarts_pod_on_retryable_code():
    with Cluster() as c:
        c.store.create(TF, tfjob("retry", workers=1, policy="ExitCode", SIM_RUN_SECONDS=2,
                                 SIM_EXIT_CODE=137))
        j = c.wait_condition(TF, "retry", "Restarting")
        r = [x for x in conds(j) if x[0] == "Restarting"][0]
        assert r[2:] == ("TFJobRestarting", "job retry is restarting because Worker replica(s) failed.")
        assert c.wait("restart event", lambda: c.events("retry", "TFJobRestarting"))[0]["type"] == "Warning"
        c.wait("a second pod instance", lambda: len(c.events("retry", "SuccessfulCreatePod")) >= 1 and
               c.events("retry", "SuccessfulDeletePod"))


def test_pytorchjob_env_and_master_success():
    with Cluster() as c:
        spec = lambda n: {"replicas": n, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [{
            "name": "pytorch", "image": "pytorch/pytorch:2.5.0", "env": env(SIM_RUN_SECONDS=3)}]}}}
        c.store.create(PT, {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                            "metadata": {"name": "bert", "namespace": "default"},
                            "spec": {"pytorchReplicaSpecs": {"Master": spec(1), "Worker": spec(2)}}})
        c.wait("pods", lambda: len(c.pods("bert-")) == 3)
        w1 = {e["name"]: e["value"] for e in c.get("pods", "bert-worker-1")["spec"]["containers"][0]["env"]}
        assert (w1["MASTER_ADDR"], w1["MASTER_PORT"], w1["WORLD_SIZE"], w1["RANK"]) == \
            ("bert-master-0", "23456", "3", "2")
        j = c.wait_condition(PT, "bert", "Succeeded")
        assert [x for x in conds(j) if x[0] == "Succeeded"][0][2:] == (
            "PyTorchJobSucceeded", "PyTorchJob bert is successfully completed.")
        assert conds(j)[0] == ("Created", "True", "PyTorchJobCreated", "PyTorchJob bert is created.")


def test_suspend_deletes_pods_and_resume_recreates_them():
    with Cluster() as c:
        c.store.create(TF, tfjob("pausable", workers=1, SIM_RUN_SECONDS=1000))
        c.wait_phase("pausable-worker-0", "Running")
        c.store.mutate(TF, "default", "pausable", lambda j: j["spec"]["runPolicy"].update(suspend=True))
        j = c.wait_condition(TF, "pausable", "Suspended")
        assert [x for x in conds(j) if x[0] == "Suspended"][0][2:] == (
            "TFJobSuspended", "TFJob pausable is suspended.")
        c.wait_gone("pods", "pausable-worker-0")
        c.store.mutate(TF, "default", "pausable", lambda j: j["spec"]["runPolicy"].update(suspend=False))
        j = c.wait_condition(TF, "pausable", "Suspended", "False")
        assert [x for x in conds(j) if x[0] == "Suspended"][0][2] == "TFJobResumed"
        c.wait_phase("pausable-worker-0", "Running")


def test_mpijob_v1_launcher_decides():
    with Cluster() as c:
        c.store.create("mpijobs.kubeflow.org", {
            "apiVersion": "kubeflow.org/v1", "kind": "MPIJob",
            "metadata": {"name": "hvd", "namespace": "default"},
            "spec": {"runPolicy": {"cleanPodPolicy": "All"}, "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{
                    "name": "mpi", "image": "horovod/horovod:0.28.1", "command": ["mpirun"],
                    "env": env(SIM_RUN_SECONDS=4)}]}}},
                "Worker": {"replicas": 2, "template": {"spec": {"containers": [{
                    "name": "mpi", "image": "horovod/horovod:0.28.1"}]}}}}}})
        c.wait("pods", lambda: len(c.pods("hvd-")) == 3)
        launcher = c.get("pods", "hvd-launcher")
        assert launcher["metadata"]["labels"]["training.kubeflow.org/replica-type"] == "launcher"
        assert launcher["metadata"]["labels"]["training.kubeflow.org/job-role"] == "master"
        assert launcher["spec"]["initContainers"][0]["name"] == "kubectl-delivery"
        j = c.wait_condition("mpijobs.kubeflow.org", "hvd", "Running")
        assert [x for x in conds(j) if x[0] == "Running"][0][2:] == (
            "MPIJobRunning", "MPIJob default/hvd is running.")
        j = c.wait_condition("mpijobs.kubeflow.org", "hvd", "Succeeded")
        assert [x for x in conds(j) if x[0] == "Succeeded"][0][2:] == (
            "MPIJobSucceeded", "MPIJob default/hvd successfully completed.")
        c.wait_gone("pods", "hvd-worker-0")


def test_mpijob_v2beta1_launcher_is_a_batch_job():
    with Cluster(mpi_v2beta1=True) as c:
        c.store.create("mpijobs.kubeflow.org", {
            "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
            "metadata": {"name": "pi", "namespace": "default"},
            "spec": {"slotsPerWorker": 1, "runPolicy": {"cleanPodPolicy": "Running"}, "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{
                    "name": "mpi-launcher", "image": "mpioperator/mpi-pi:openmpi",
                    "command": ["mpirun", "/home/mpiuser/pi"], "env": env(SIM_RUN_SECONDS=4)}]}}},
                "Worker": {"replicas": 2, "template": {"spec": {"containers": [{
                    "name": "mpi-worker", "image": "mpioperator/mpi-pi:openmpi"}]}}}}}})
        j = c.wait_condition("mpijobs.kubeflow.org", "pi", "Created")
        assert conds(j)[0] == ("Created", "True", "MPIJobCreated", "MPIJob default/pi is created.")
        launcher_job = c.wait("launcher Job", lambda: c.get("jobs.batch", "pi-launcher"))
        assert launcher_job["metadata"]["ownerReferences"][0]["kind"] == "MPIJob"
        lpod = c.wait("launcher pod", lambda: c.pods("pi-launcher-"))[0]
        labels = lpod["metadata"]["labels"]
        assert labels["training.kubeflow.org/job-role"] == "launcher"
        assert labels["job-name"] == "pi-launcher"
        assert labels["controller-uid"] == launcher_job["metadata"]["uid"]
        assert c.get("pods", "pi-worker-1")["metadata"]["labels"]["training.kubeflow.org/job-role"] == "worker"
        j = c.wait_condition("mpijobs.kubeflow.org", "pi", "Succeeded")
        assert [x for x in conds(j) if x[0] == "Succeeded"][0][2:] == (
            "MPIJobSucceeded", "MPIJob default/pi successfully completed.")
        lj = c.get("jobs.batch", "pi-launcher")
        assert [x["type"] for x in lj["status"]["conditions"]] == ["SuccessCriteriaMet", "Complete"]
        assert lj["status"]["succeeded"] == 1
        c.wait_gone("pods", "pi-worker-0")


def test_trainjob_runs_indexed_pods_and_completes():
    with Cluster() as c:
        c.store.create("trainjobs.trainer.kubeflow.org", {
            "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "llm", "namespace": "default"},
            "spec": {"runtimeRef": {"name": "torch-distributed"},
                     "trainer": {"image": "pytorch/pytorch:2.5.0", "numNodes": 2,
                                 "env": env(SIM_RUN_SECONDS=3),
                                 "resourcesPerNode": {"limits": {"nvidia.com/gpu": "1"}}}}})
        pods = c.wait("2 pods", lambda: len(c.pods("llm-node-0-")) == 2 and c.pods("llm-node-0-"))
        names = sorted(p["metadata"]["name"] for p in pods)
        assert names[0].startswith("llm-node-0-0-") and names[1].startswith("llm-node-0-1-")
        assert all(len(n.rsplit("-", 1)[1]) == 5 for n in names)
        assert all(p["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"] == "llm" for p in pods)
        j = c.wait_condition("trainjobs.trainer.kubeflow.org", "llm", "Complete")
        cond = [x for x in j["status"]["conditions"] if x["type"] == "Complete"][0]
        assert (cond["reason"], cond["message"]) == ("AllJobsCompleted", "jobset completed successfully")
        assert j["status"]["jobsStatus"][0]["succeeded"] == 1
        # as upstream: TrainJob -> JobSet -> Job -> pods, and the JobSet says how it ended
        js = c.get("jobsets.jobset.x-k8s.io", "llm")
        assert js["metadata"]["ownerReferences"][0]["kind"] == "TrainJob"
        assert js["status"]["terminalState"] == "Completed"
        node_job = c.get("jobs.batch", "llm-node-0")
        assert node_job["metadata"]["ownerReferences"][0]["kind"] == "JobSet"
        assert node_job["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-uid"] == js["metadata"]["uid"]
        said = c.wait("the JobSet's event", lambda: [
            (e["type"], e["reason"], e["message"]) for e in c.events("llm")
            if e["involvedObject"]["kind"] == "JobSet"])
        assert said == [("Normal", "AllJobsCompleted", "jobset completed successfully")]


def test_trainjob_reports_progress_while_it_runs():
    """SIM_REPORT_SECONDS: kubesim stands in for a training script calling the
    Kubeflow SDK's update_trainjob_status; each report is one the real CRD takes
    (admission's trainer_status_causes), the next one further on."""
    from kubesim_lib.admission import trainer_status_causes
    with Cluster(speed=20) as c:
        c.store.create("trainjobs.trainer.kubeflow.org", {
            "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "llm", "namespace": "default"},
            "spec": {"runtimeRef": {"name": "torch-distributed"},
                     "trainer": {"image": "pytorch/pytorch:2.5.0", "numNodes": 1,
                                 "env": env(SIM_RUN_SECONDS=400, SIM_REPORT_SECONDS=20)}}})

        def reported(after=None):
            tj = c.get("trainjobs.trainer.kubeflow.org", "llm")
            ts = (tj.get("status") or {}).get("trainerStatus")
            return ts if ts and (after is None or ts["lastUpdatedTime"] > after) else None
        first = c.wait("a first report", reported)
        second = c.wait("a later report", lambda: reported(first["lastUpdatedTime"]))
        for ts in (first, second):
            assert trainer_status_causes(ts) == [], ts
            assert [m["name"] for m in ts["metrics"]] == ["loss", "eval_accuracy"]
        assert first["progressPercentage"] <= second["progressPercentage"] < 100
        assert first["estimatedRemainingSeconds"] > second["estimatedRemainingSeconds"]
        assert float(first["metrics"][0]["value"]) > float(second["metrics"][0]["value"])
