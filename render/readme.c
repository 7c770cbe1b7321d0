/*
 * The README at the top of the mount: what the tree is and how to submit, so that
 * someone who finds the mount knows what to do with it. Its list of places is
 * handed in (fs/'s table of places, each row's `about`), so that a new file of the
 * tree shows here by its row alone; the text never changes while mounted. docs/tree.md
 * is the full reference.
 *
 * Pure. Tested by tests/unit/test_render_cluster.c (with the other static files).
 */
#include "render/readme.h"

static const char README[] =
    "arenafs: this directory is a Kubernetes cluster's training jobs as files\n"
    "(what the Kubeflow Arena CLI shows, read with cat, tail -f, grep, ls).\n"
    "\n";

static const char SUBMIT[] =
    "\n"
    "Submit a job by copying a spec into submit/; cp fails when the spec is wrong, and\n"
    "submit/NAME/error then says why:\n"
    "\n"
    "  cp mnist.yaml submit/          # the job is named after name:, else the file\n"
    "  cp -r mnist/ submit/           # a directory holding spec.yaml\n"
    "  cp mnist.yaml check/           # nothing made: check/mnist/objects.yaml shows what\n"
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

void render_readme(struct strbuf *sb, const struct readme_line *lines, size_t n)
{
	strbuf_append(sb, README, sizeof(README) - 1);
	for (size_t i = 0; i < n; i++)
		strbuf_printf(sb, "  %-24s %s\n", lines[i].path, lines[i].about);
	strbuf_append(sb, SUBMIT, sizeof(SUBMIT) - 1);
}
