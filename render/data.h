/*
 * data/list (data.c): a namespace's PersistentVolumeClaims as a table, in the columns
 * of `arena data list` and more, with the jobs that mount each. Pure: `now` comes in
 * the view. Callers: fs/ (the places table's row). Test: tests/unit/test_render_data.c.
 */
#ifndef ARENAFS_RENDER_DATA_H
#define ARENAFS_RENDER_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"

/* A namespace's claims, by name, and its jobs (any order), which mount them. */
struct data_view {
	const struct pvc *const *pvcs;
	size_t n_pvcs;
	const struct job *const *jobs;
	size_t n_jobs;
	int64_t now;
	/* NULL, or the API server's 403 for listing the namespace's claims: the file says
	 * so instead of looking empty */
	const char *forbidden;
	const char *ns;              /* the namespace, for that sentence */
};

void render_data_list(struct strbuf *sb, const struct data_view *v);
/* data/list.json, list.yaml: the claims as an array of objects (data.c). v->forbidden
 * has no form: the caller fails the read instead. */
void render_data_list_json(struct strbuf *sb, const struct data_view *v);
void render_data_list_yaml(struct strbuf *sb, const struct data_view *v);

#endif
