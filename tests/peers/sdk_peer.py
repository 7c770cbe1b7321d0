"""A peer of arenafs on the same cluster: the Kubeflow Training SDK's
TrainingClient, run by the virtual environment tests/peers/venv.sh makes.

    sdk_peer.py KUBECONFIG NAMESPACE create NAME     a TFJob (one worker, 4 s)
    sdk_peer.py KUBECONFIG NAMESPACE status NAME     the SDK's view: Succeeded, Running, ...
    sdk_peer.py KUBECONFIG NAMESPACE wait NAME KIND  waits for Succeeded; prints it

Prints one line; exits non-zero with the SDK's error otherwise."""

import sys

from kubeflow.training import TrainingClient, constants, models
from kubernetes import client


def tfjob(name):
    container = client.V1Container(
        name="tensorflow", image="tensorflow/tensorflow:2.15.0", command=["python", "train.py"],
        env=[client.V1EnvVar(name="KWOK_RUN", value="4s"),
             client.V1EnvVar(name="SIM_RUN_SECONDS", value="4")])
    worker = models.KubeflowOrgV1ReplicaSpec(
        replicas=1, restart_policy="Never",
        template=client.V1PodTemplateSpec(spec=client.V1PodSpec(containers=[container])))
    return models.KubeflowOrgV1TFJob(
        api_version=constants.API_VERSION, kind=constants.TFJOB_KIND,
        metadata=client.V1ObjectMeta(name=name),
        spec=models.KubeflowOrgV1TFJobSpec(
            run_policy=models.KubeflowOrgV1RunPolicy(clean_pod_policy="None"),
            tf_replica_specs={"Worker": worker}))


def main(kubeconfig, namespace, verb, name, kind="TFJob"):
    tc = TrainingClient(config_file=kubeconfig, namespace=namespace, job_kind=kind)
    if verb == "create":
        tc.create_job(job=tfjob(name), namespace=namespace)
        print("created")
    elif verb == "status":
        conds = tc.get_job_conditions(name=name, namespace=namespace, job_kind=kind)
        true = [c.type for c in conds if c.status == "True"]
        print(true[-1] if true else "none")
    elif verb == "wait":
        tc.wait_for_job_conditions(name=name, namespace=namespace, job_kind=kind,
                                   wait_timeout=120, polling_interval=1)
        print("Succeeded")
    else:
        sys.exit("unknown verb " + verb)


if __name__ == "__main__":
    main(*sys.argv[1:])
