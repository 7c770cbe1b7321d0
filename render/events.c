/*
 * jobs/NAME/events: the Kubernetes events of the job and of its pods, as the
 * "Events:" block of `arena get -e` prints them (pkg/training/get.go printEvents):
 * SOURCE "<kind>/<name>", TYPE, AGE, MESSAGE "[<reason>] <message>".
 *
 * Departures, for a file: one table oldest first across every object (Arena
 * grouped by object in map order), by lastTimestamp as `kubectl get events`
 * orders them, then firstTimestamp, then name; AGE is since the last
 * occurrence, and a repeated event says "(x3)" after its message as `kubectl
 * describe` does; no indent. With none: Arena's "No events for resources".
 * Messages are made single-line (table.c), so a hostile one cannot forge rows.
 *
 * Pure: ages from v->now. Tested by tests/unit/test_render_events.c.
 */
#include "render/events.h"
#include "render/render.h"
#include "render/table.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int event_cmp(const void *a, const void *b)
{
	const struct event *ea = *(const struct event *const *)a;
	const struct event *eb = *(const struct event *const *)b;

	if (ea->last_seen != eb->last_seen)
		return ea->last_seen < eb->last_seen ? -1 : 1;
	if (ea->first_seen != eb->first_seen)
		return ea->first_seen < eb->first_seen ? -1 : 1;
	return strcmp(ea->meta.name, eb->meta.name);
}

static void event_row(struct render_table *t, const struct event *e, int64_t now)
{
	struct strbuf source = STRBUF_INIT, message = STRBUF_INIT;
	char kind[64], age[32];

	strbuf_printf(&source, "%s/%s", render_lower(e->involved_kind, kind, sizeof(kind)),
	              e->involved_name);
	strbuf_printf(&message, "[%s] %s", e->reason, e->message);
	if (e->count > 1)
		strbuf_printf(&message, " (x%d)", e->count);
	if (!strbuf_ok(&source) || !strbuf_ok(&message))
		t->oom = true;
	else
		render_table_add(
		    t, (const char *[]){strbuf_str(&source), e->type,
		                        render_short_duration(now - e->last_seen, age, sizeof(age)),
		                        strbuf_str(&message)});
	strbuf_free(&source);
	strbuf_free(&message);
}

void render_job_events(struct strbuf *sb, const struct job_view *v)
{
	const struct event **events;
	struct render_table t;

	if (v->n_events == 0) {
		strbuf_puts(sb, "No events for resources\n");
		return;
	}
	events = malloc(v->n_events * sizeof(*events));
	if (!events) {
		sb->oom = true;
		return;
	}
	memcpy(events, v->events, v->n_events * sizeof(*events));
	qsort(events, v->n_events, sizeof(*events), event_cmp);
	render_table_init(&t, 4);
	render_table_add(&t, (const char *[]){"SOURCE", "TYPE", "AGE", "MESSAGE"});
	render_table_add_rule(&t);
	for (size_t i = 0; i < v->n_events; i++)
		event_row(&t, events[i], v->now);
	render_table_render(sb, &t, "");
	render_table_free(&t);
	free(events);
}
