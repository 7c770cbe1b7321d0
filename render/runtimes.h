/*
 * The training runtimes a TrainJob can name (runtimes.c): Kubeflow Trainer's
 * ClusterTrainingRuntimes and the namespace's TrainingRuntimes, as the file
 * `runtimes` shows them and as a submission refused for naming a missing one
 * lists them. Pure: rows and `now` come in. Callers: fs/tree/runtimes.c (the
 * snapshot), fs/tree/content.c (the file), fs/submit/submit_run.c (the
 * refusal). Test: tests/unit/test_render_runtimes.c.
 */
#ifndef ARENAFS_RENDER_RUNTIMES_H
#define ARENAFS_RENDER_RUNTIMES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/* One runtime. name is what a spec's `runtime:` takes: NAME for a
 * ClusterTrainingRuntime, TrainingRuntime/NAME for the namespace's own. */
struct runtime_row {
	char *name;
	const char *kind;     /* "ClusterTrainingRuntime" or "TrainingRuntime" (static) */
	char *framework;      /* label trainer.kubeflow.org/framework, "" when none */
	long long nodes;      /* spec.mlPolicy.numNodes, 0 when unset */
	int64_t created;      /* 0 when unknown */
};

/* What is known of the cluster's runtimes: the rows (cluster-wide first, then the
 * namespace's, each by name), or why there are none to show. */
struct runtimes {
	struct runtime_row *rows;
	size_t n;
	bool served;          /* the cluster serves trainer.kubeflow.org's runtimes */
	bool known;           /* a list has been answered (else: not yet, or an error) */
	char error[256];      /* the last list's failure, "" when it was answered */
};

/* Appends the items of a ClusterTrainingRuntimeList or TrainingRuntimeList (the
 * API's JSON) to r, sorted by name within the list. -ENOMEM. */
int runtimes_add_list(struct runtimes *r, const json_t *list, bool cluster_scoped);
void runtimes_clear(struct runtimes *r);
/* Does r hold a runtime of that spec name (NAME or TrainingRuntime/NAME)? */
bool runtimes_has(const struct runtimes *r, const char *name);

/* The file `runtimes`: a table NAME KIND FRAMEWORK NODES AGE, or a line saying
 * why there is none. */
void render_runtimes(struct strbuf *sb, const struct runtimes *r, int64_t now);
/* "a, b, c" (the spec names), or "none" when there is none. */
void render_runtime_names(struct strbuf *sb, const struct runtimes *r);

#endif
