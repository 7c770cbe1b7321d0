/*
 * data/list: a namespace's PersistentVolumeClaims as a table, in the columns of
 * `arena data list` (NAME, ACCESSMODE, DESCRIPTION, OWNER, AGE: its
 * pkg/datahouse) with what it leaves out and a user asks first: STATUS,
 * CAPACITY, CLASS and the JOBS that mount each claim. Arena lists only Bound
 * claims; every claim is here, its STATUS saying which can be mounted
 * (docs/arena.md compares them).
 *
 * data/list.json and list.yaml: the same claims as one array of objects, for scripts
 * (Arena has no -o for data list): name, namespace, status (as STATUS), capacity and
 * requested (Kubernetes quantities, "" when unknown), accessModes (a list),
 * storageClass ("" when none), volume, jobs (the names of the jobs mounting it),
 * description, owner, creationTimestamp (RFC 3339, "" when unknown) and age (seconds,
 * a number). A 403 has no JSON form: fs/ fails those reads with EACCES (PLACE_FORM).
 *
 * Pure (now passed in); called by fs/tree/content.c; tested by
 * tests/unit/test_render_data.c and tests/fuzz/fuzz_render.c.
 */
#include "render/data.h"
#include "render/form_write.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <string.h>

#include "k8s/base/timefmt.h"

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

static void claim_jobs(struct form *f, const struct data_view *v, const char *claim)
{
	render_form_array(f, "jobs");
	for (size_t i = 0; i < v->n_jobs; i++)
		if (list_has(v->jobs[i]->claims, claim))
			render_form_string(f, NULL, v->jobs[i]->meta.name);
	render_form_end(f);
}

static void claim(struct form *f, const struct data_view *v, const struct pvc *c)
{
	char created[32];

	render_form_object(f, NULL);
	render_form_string(f, "name", c->meta.name);
	render_form_string(f, "namespace", c->meta.namespace);
	render_form_string(f, "status", c->meta.deleted ? "Terminating" : c->phase);
	render_form_string(f, "capacity", c->capacity);
	render_form_string(f, "requested", c->requested);
	render_form_comma_list(f, "accessModes", c->access_modes);
	render_form_string(f, "storageClass", c->storage_class);
	render_form_string(f, "volume", c->volume);
	claim_jobs(f, v, c->meta.name);
	render_form_string(f, "description", c->description);
	render_form_string(f, "owner", c->owner);
	render_form_string(f, "creationTimestamp",
	                   c->meta.created ? time_format_rfc3339(c->meta.created, created,
	                                                         sizeof(created))
	                                   : "");
	render_form_int(f, "age", c->meta.created ? v->now - c->meta.created : 0);
	render_form_end(f);
}

static void claims(struct strbuf *sb, const struct data_view *v, bool yaml)
{
	struct form f;

	render_form_init(&f, sb, yaml);
	render_form_array(&f, NULL);
	for (size_t i = 0; i < v->n_pvcs; i++)
		claim(&f, v, v->pvcs[i]);
	render_form_end(&f);
	render_form_finish(&f);
}

void render_data_list_json(struct strbuf *sb, const struct data_view *v)
{
	claims(sb, v, false);
}

void render_data_list_yaml(struct strbuf *sb, const struct data_view *v)
{
	claims(sb, v, true);
}
