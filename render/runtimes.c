/*
 * The training runtimes of Kubeflow Trainer v2 (runtimes.h): the API's lists
 * read into rows, the file `runtimes` and the list a refused submission
 * gives. Columns: NAME (what `runtime:` takes), KIND, FRAMEWORK (the label
 * trainer.kubeflow.org/framework Trainer's own runtimes carry), NODES
 * (spec.mlPolicy.numNodes, the default a TrainJob's numNodes overrides), AGE.
 *
 * Pure (now passed in); called by fs/tree/runtimes.c, fs/tree/content.c and
 * fs/submit/submit_run.c; tested by tests/unit/test_render_runtimes.c.
 */
#include "render/runtimes.h"
#include "render/table.h"
#include "render/text.h"
#include "k8s/base/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMEWORK_LABEL "trainer.kubeflow.org/framework"
#define TRAINING_RUNTIME "TrainingRuntime"
#define CLUSTER_TRAINING_RUNTIME "ClusterTrainingRuntime"

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct runtime_row *)a)->name, ((const struct runtime_row *)b)->name);
}

static const char *str_at(const json_t *obj, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(obj, a), b);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

int runtimes_add_list(struct runtimes *r, const json_t *list, bool cluster_scoped)
{
	const json_t *items = json_object_get(list, "items");
	size_t first = r->n, i;
	const json_t *it;
	struct runtime_row *rows;

	if (!json_is_array(items) || !json_array_size(items))
		return 0;
	rows = realloc(r->rows, (r->n + json_array_size(items)) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	r->rows = rows;
	json_array_foreach(items, i, it) {
		const char *name = str_at(it, "metadata", "name");
		const json_t *labels = json_object_get(json_object_get(it, "metadata"), "labels");
		const json_t *fw = json_object_get(labels, FRAMEWORK_LABEL);
		const json_t *nodes = json_object_get(
		    json_object_get(json_object_get(it, "spec"), "mlPolicy"), "numNodes");
		const char *created = str_at(it, "metadata", "creationTimestamp");
		struct runtime_row *row = &rows[r->n];
		char spec_name[300];

		if (!name)
			continue;
		snprintf(spec_name, sizeof(spec_name), "%s%s", cluster_scoped ? "" : TRAINING_RUNTIME "/",
		         name);
		row->name = strdup(spec_name);
		row->framework = strdup(json_is_string(fw) ? json_string_value(fw) : "");
		if (!row->name || !row->framework) {
			free(row->name);
			free(row->framework);
			return -ENOMEM;
		}
		row->kind = cluster_scoped ? CLUSTER_TRAINING_RUNTIME : TRAINING_RUNTIME;
		row->nodes = json_is_integer(nodes) ? json_integer_value(nodes) : 0;
		row->created = created ? time_parse_rfc3339(created) : 0;
		r->n++;
	}
	qsort(r->rows + first, r->n - first, sizeof(*r->rows), cmp_row);
	return 0;
}

void runtimes_clear(struct runtimes *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].name);
		free(r->rows[i].framework);
	}
	free(r->rows);
	r->rows = NULL;
	r->n = 0;
}

bool runtimes_has(const struct runtimes *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->rows[i].name, name) == 0)
			return true;
	return false;
}

void render_runtimes(struct strbuf *sb, const struct runtimes *r, int64_t now)
{
	const char *header[] = {"NAME", "KIND", "FRAMEWORK", "NODES", "AGE"};
	struct render_table t;

	if (!r->known) {
		strbuf_printf(sb, "The cluster's training runtimes are not known yet%s%s.\n",
		              *r->error ? ": " : "", r->error);
		return;
	}
	if (!r->served) {
		strbuf_puts(sb, "No Kubeflow Trainer in this cluster: it serves no training runtimes "
		                "(trainer.kubeflow.org).\n");
		return;
	}
	render_table_init(&t, 5);
	render_table_add(&t, header);
	for (size_t i = 0; i < r->n; i++) {
		const struct runtime_row *row = &r->rows[i];
		char nodes[32], age[32];
		const char *cells[5];

		snprintf(nodes, sizeof(nodes), "%lld", row->nodes);
		cells[0] = row->name;
		cells[1] = row->kind;
		cells[2] = *row->framework ? row->framework : "<none>";
		cells[3] = row->nodes > 0 ? nodes : RENDER_NA;
		cells[4] = row->created ? render_short_duration(now - row->created, age, sizeof(age))
		                        : "<unknown>";
		render_table_add(&t, cells);
	}
	render_table_render(sb, &t, "");
	render_table_free(&t);
	if (!r->n)
		strbuf_puts(sb, "No training runtimes: a trainjob has none to name.\n");
}

void render_runtime_names(struct strbuf *sb, const struct runtimes *r)
{
	if (!r->n) {
		strbuf_puts(sb, "none");
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		strbuf_printf(sb, "%s%s", i ? ", " : "", r->rows[i].name);
}
