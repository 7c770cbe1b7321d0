/*
 * data/list: a namespace's PersistentVolumeClaims as a table, in the columns of
 * `arena data list` (NAME, ACCESSMODE, DESCRIPTION, OWNER, AGE: its
 * pkg/datahouse) with what it leaves out and a user asks first: STATUS,
 * CAPACITY, CLASS and the JOBS that mount each claim. Arena lists only Bound
 * claims; every claim is here, its STATUS saying which can be mounted
 * (docs/arena.md compares them).
 *
 * Pure (now passed in); called by fs/tree/content.c; tested by
 * tests/unit/test_render_data.c and tests/fuzz/fuzz_render.c.
 */
#include "render/data.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <string.h>

/* The names of the jobs of v that mount claim, comma-joined, "" when none. The
 * same job name of two kinds reads twice: each is a job of its own. */
static void jobs_of_claim(struct strbuf *sb, const struct data_view *v, const char *claim)
{
	for (size_t i = 0; i < v->n_jobs; i++) {
		if (!list_has(v->jobs[i]->claims, claim))
			continue;
		if (sb->len)
			strbuf_putc(sb, ',');
		strbuf_puts(sb, v->jobs[i]->meta.name);
	}
}

/* The claims cannot be listed: the reason, never an empty table (docs/tree.md,
 * "data/list"). */
static void forbidden(struct strbuf *sb, const struct data_view *v)
{
	strbuf_puts(sb, "Forbidden (403): these credentials may not list the "
		    "PersistentVolumeClaims of namespace ");
	render_put_oneline(sb, v->ns ? v->ns : "", 253);
	strbuf_puts(sb, " (kubectl auth can-i list persistentvolumeclaims -n ");
	render_put_oneline(sb, v->ns ? v->ns : "", 253);
	strbuf_puts(sb, "); the API server says: ");
	render_put_oneline(sb, *v->forbidden ? v->forbidden : "forbidden", 1024);
	strbuf_putc(sb, '\n');
}

void render_data_list(struct strbuf *sb, const struct data_view *v)
{
	const char *header[] = {"NAME",  "STATUS",      "CAPACITY", "ACCESSMODE", "CLASS",
	                        "JOBS",  "DESCRIPTION", "OWNER",    "AGE"};
	struct render_table t;
	char age[32];

	if (v->forbidden) {
		forbidden(sb, v);
		return;
	}
	render_table_init(&t, 9);
	render_table_add(&t, header);
	for (size_t i = 0; i < v->n_pvcs; i++) {
		const struct pvc *c = v->pvcs[i];
		struct strbuf jobs = STRBUF_INIT;
		const char *row[9];

		jobs_of_claim(&jobs, v, c->meta.name);
		row[0] = c->meta.name;
		/* a claim being deleted still shows, as kubectl's Terminating */
		row[1] = c->meta.deleted ? "Terminating" : *c->phase ? c->phase : RENDER_NA;
		/* bound: what it got; pending: what it asked for, which may differ */
		row[2] = *c->capacity ? c->capacity : *c->requested ? c->requested : RENDER_NA;
		row[3] = *c->access_modes ? c->access_modes : RENDER_NA;
		row[4] = *c->storage_class ? c->storage_class : "<none>";
		row[5] = jobs.len ? strbuf_str(&jobs) : "<none>";
		row[6] = c->description;
		row[7] = c->owner;
		row[8] = c->meta.created ? render_short_duration(v->now - c->meta.created, age,
		                                                 sizeof(age))
		                         : "<unknown>";
		if (!strbuf_ok(&jobs))
			t.oom = true;
		render_table_add(&t, row);
		strbuf_free(&jobs);
	}
	render_table_render(sb, &t, "");
	render_table_free(&t);
	if (!v->n_pvcs)
		strbuf_puts(sb, "No PersistentVolumeClaims in this namespace.\n");
}
