"""A peer of arenafs on the same cluster: the newest official kubernetes
Python client (tests/peers/venv.sh), creating a TFJob and watching jobs.

    k8s_peer.py KUBECONFIG NAMESPACE create NAME   a TFJob (one worker, 4 s)
    k8s_peer.py KUBECONFIG NAMESPACE watch NAME    watches TFJobs until NAME has
                                                   condition Succeeded; prints it

Prints one line; exits non-zero with the client's error otherwise."""

import sys

from kubernetes import client, config, watch

GROUP, VERSION, PLURAL = "kubeflow.org", "v1", "tfjobs"


def main(kubeconfig, namespace, verb, name):
    api = client.CustomObjectsApi(config.new_client_from_config(config_file=kubeconfig))
    if verb == "create":
        api.create_namespaced_custom_object(GROUP, VERSION, namespace, PLURAL, {
            "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": name},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": 1, "restartPolicy": "Never",
                "template": {"spec": {"containers": [{
                    "name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0",
                    "command": ["python", "train.py"],
                    "env": [{"name": "KWOK_RUN", "value": "4s"},
                            {"name": "SIM_RUN_SECONDS", "value": "4"}]}]}}}}}})
        print("created")
    elif verb == "watch":
        w = watch.Watch()
        for ev in w.stream(api.list_namespaced_custom_object, GROUP, VERSION, namespace, PLURAL,
                           timeout_seconds=120):
            obj = ev["object"]
            if obj["metadata"]["name"] != name:
                continue
            conds = (obj.get("status") or {}).get("conditions") or []
            if any(c["type"] == "Succeeded" and c["status"] == "True" for c in conds):
                w.stop()
                print("Succeeded")
                return
        sys.exit("watch ended before %s succeeded" % name)
    else:
        sys.exit("unknown verb " + verb)


if __name__ == "__main__":
    main(*sys.argv[1:])
