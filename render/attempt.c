/*
 * instances/POD/attempts/N/info: one attempt of a pod's main container (the
 * container instance of restartCount N-1), as `kubectl describe pod` shows a
 * container's state and last state, and where its log is — never a silent
 * empty file: a log that was dropped or never kept says so here, and its `log`
 * fails with ENODATA (docs/tree.md, "instances/POD/attempts/").
 *
 *     Attempt:    2 of 3
 *     Container:  pytorch
 *     State:      Terminated, exit code 1 (Error)
 *     Started:    2026-12-06 10:00:00
 *     Ended:      2026-12-06 10:00:12 (after 12s)
 *     Log:        kept, 2 KiB (attempts/2/log)
 *
 * Pure. Called by fs/tree/content.c; tested by tests/unit/test_render_attempt.c and
 * tests/fuzz/fuzz_render.c.
 */
#include "render/attempt.h"
#include "render/text.h"

#include "k8s/base/timefmt.h"

static void put_time(struct strbuf *sb, const char *label, int64_t t)
{
	char buf[32];

	strbuf_printf(sb, "%-12s%s", label, t > 0 ? time_format_human(t, buf, sizeof(buf)) : "unknown");
}

static void put_log(struct strbuf *sb, const struct attempt_view *v)
{
	char when[32];

	strbuf_puts(sb, "Log:        ");
	switch (v->log) {
	case ATTEMPT_LOG_KEPT:
		strbuf_puts(sb, "kept, ");
		render_put_size(sb, v->size);
		strbuf_printf(sb, " (attempts/%d/log)\n", v->number);
		return;
	case ATTEMPT_LOG_SERVED:
		if (v->running)
			strbuf_printf(sb, "live (attempts/%d/log, as logs)", v->number);
		else
			strbuf_printf(sb, "served by the node while it is the last attempt "
				      "(attempts/%d/log, as logs.previous)", v->number);
		strbuf_puts(sb, v->keep_logs ? "; kept once it ends\n" :
			    "; not kept after that (keep_logs=0)\n");
		return;
	case ATTEMPT_LOG_DROPPED:
		strbuf_printf(sb, "dropped at %s: the kept logs reached keep_logs (",
			      time_format_human(v->dropped, when, sizeof(when)));
		render_put_size(sb, v->keep_logs);
		strbuf_puts(sb, "), the least recently read go first\n");
		return;
	case ATTEMPT_LOG_TOO_BIG:
		strbuf_puts(sb, "not kept: larger than keep_logs (");
		render_put_size(sb, v->keep_logs);
		strbuf_puts(sb, ")\n");
		return;
	case ATTEMPT_LOG_LOST:
		strbuf_puts(sb, v->keep_logs
			    ? "not kept: it ended before arenafs saw it, and a node serves only "
			      "the last attempt's log\n"
			    : "not kept (keep_logs=0), and a node serves only the last attempt's log\n");
		return;
	}
}

void render_attempt_info(struct strbuf *sb, const struct attempt_view *v)
{
	char dur[32];

	strbuf_printf(sb, "%-12s%d", "Attempt:", v->number);
	if (v->of > 0)
		strbuf_printf(sb, " of %d", v->of);
	strbuf_puts(sb, "\nContainer:  ");
	render_put_oneline(sb, v->container ? v->container : "", 253);
	strbuf_puts(sb, "\nState:      ");
	if (v->running)
		strbuf_puts(sb, "Running");
	else if (!v->known)
		strbuf_puts(sb, "Terminated (how is unknown: it ended before arenafs saw it)");
	else {
		strbuf_printf(sb, "Terminated, exit code %d", v->exit_code);
		if (v->reason && v->reason[0]) {
			strbuf_puts(sb, " (");
			render_put_oneline(sb, v->reason, 64);
			strbuf_putc(sb, ')');
		}
	}
	strbuf_putc(sb, '\n');
	put_time(sb, "Started:", v->known || v->running ? v->started : 0);
	if (v->running && v->started > 0 && v->now >= v->started)
		strbuf_printf(sb, " (%s ago)", render_short_duration(v->now - v->started, dur,
								       sizeof(dur)));
	strbuf_putc(sb, '\n');
	if (v->running) {
		strbuf_puts(sb, "Ended:      -\n");
	} else {
		put_time(sb, "Ended:", v->known ? v->finished : 0);
		if (v->known && v->started > 0 && v->finished >= v->started)
			strbuf_printf(sb, " (after %s)", render_short_duration(v->finished - v->started,
									     dur, sizeof(dur)));
		strbuf_putc(sb, '\n');
	}
	put_log(sb, v);
}
