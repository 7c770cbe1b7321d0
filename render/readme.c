/*
 * The README at the top of the mount: what the tree is and how to submit, so that
 * someone who finds the mount knows what to do with it. Static text (its size
 * never changes); docs/tree.md is the full reference.
 *
 * Pure. Tested by tests/unit/test_render_cluster.c (with the other static files).
 */
#include "render/render_internal.h"

static const char README[] =
    "arenafs: this directory is a Kubernetes cluster's training jobs as files\n"
    "(what the Kubeflow Arena CLI shows, read with cat, tail -f, grep, ls).\n"
    "\n"
    "  cluster/context          server, context, namespace, user (no secrets)\n"
    "  cluster/health           \"ok\", or since when and why the cluster is unreachable\n"
    "  cluster/top              arena top node: every node's GPUs\n"
    "  cluster/list             arena list: the namespace's jobs (watch cat cluster/list)\n"
    "  cluster/list-all         arena list -A: the jobs of every namespace\n"
    "  cluster/top-job          arena top job: the namespace's jobs, most GPUs first\n"
    "  cluster/gpus             allocated/total GPUs of the cluster\n"
    "  data/list                arena data list: the namespace's volume claims, their jobs\n"
    "  jobs/NAME/status         PENDING, QUEUING, RUNNING, SUCCEEDED or FAILED\n"
    "  jobs/NAME/why            one line: why it waits, failed, restarts, or runs since when\n"
    "  jobs/NAME/info           arena get: status, duration, instances, TensorBoard\n"
    "  jobs/NAME/logs           the main instance's log; tail -f follows it\n"
    "  jobs/NAME/events         Kubernetes events of the job and its pods, oldest first\n"
    "  jobs/NAME/gpus           allocated/requested GPUs of the job\n"
    "  jobs/NAME/tensorboard_url  the TensorBoard URL, when the job has one\n"
    "  jobs/NAME/spec.yaml      the spec it was submitted with (or the object as YAML)\n"
    "  jobs/NAME/code/          the files shipped with it (cp -r DIR/ submit/), read-only\n"
    "  jobs/NAME/job.json       the object as the API server returns it\n"
    "  jobs/NAME/type           tfjob, pytorchjob, mpijob, ...\n"
    "  jobs/NAME/instances/POD/ status, node, ip, gpus, logs (logs.previous after a restart)\n"
    "  nodes/NAME/              gpus (\"ALLOCATED/TOTAL\"), info, status, ip, role\n"
    "  namespaces/NS/jobs/      the jobs of other namespaces you may list\n"
    "  namespaces/NS/submit/    submit/ of namespace NS, where you may create jobs; every\n"
    "                           namespace you can see is there by name, listed or not\n"
    "\n"
    "Submit a job by copying a spec into submit/; cp fails when the spec is wrong, and\n"
    "submit/NAME/error then says why:\n"
    "\n"
    "  cp mnist.yaml submit/          # the job is named after name:, else the file\n"
    "  cp -r mnist/ submit/           # a directory holding spec.yaml\n"
    "\n"
    "A spec mirrors arena submit's flags:\n"
    "\n"
    "  type: tfjob                    # tfjob, pytorchjob, mpijob, xgboostjob, ...\n"
    "  image: tensorflow/tensorflow:2.15.0-gpu\n"
    "  command: python code/main.py --logdir /training_logs\n"
    "  gpus: 1                        # per worker\n"
    "  workers: 2\n"
    "  tensorboard: true\n"
    "\n"
    "A full Kubernetes manifest of a supported job kind is created as it stands.\n"
    "Delete a job (and what it owns) with: rmdir jobs/NAME\n"
    "Unmount with: fusermount3 -u MOUNTPOINT\n";

void render_readme(struct strbuf *sb)
{
	strbuf_append(sb, README, sizeof(README) - 1);
}
