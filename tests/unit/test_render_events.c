/* Tests render/events.c: arena get -e's table, oldest first, hostile messages. */
#include "render/render.h"
#include "render/events.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

TEST(events_none)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct job_view v = fx_view(j, NULL, 0);
	char *s = FX_RENDER(render_job_events(sb, &v));

	CHECK_STR_EQ(s, "No events for resources\n");
	free(s);
	fx_job_free(j);
}

TEST(events_oldest_first_with_repeats)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct event *e[4];
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	e[0] = fx_event("b", "Pod", "mnist-worker-0", "Warning", "BackOff",
	                "Back-off restarting failed container", FX_T0 - 5);
	e[0]->count = 3;
	e[0]->first_seen = FX_T0 - 400;
	e[1] = fx_event("a", "TFJob", "mnist", "Normal", "SuccessfulCreatePod",
	                "Created pod: mnist-worker-0", FX_T0 - 90);
	e[2] = fx_event("d", "Pod", "mnist-worker-0", "Normal", "Scheduled",
	                "Successfully assigned default/mnist-worker-0 to node-1", FX_T0 - 89);
	/* Same last time as e[2], seen first earlier: before it. */
	e[3] = fx_event("c", "Pod", "mnist-worker-0", "Normal", "Pulling", "Pulling image \"tf\"",
	                FX_T0 - 89);
	e[3]->first_seen = FX_T0 - 95;
	v.events = (const struct event *const *)e;
	v.n_events = 4;
	s = FX_RENDER(render_job_events(sb, &v));
	CHECK_STR_EQ(
	    s,
	    "SOURCE              TYPE     AGE  MESSAGE\n"
	    "------              ----     ---  -------\n"
	    "tfjob/mnist         Normal   1m   [SuccessfulCreatePod] Created pod: mnist-worker-0\n"
	    "pod/mnist-worker-0  Normal   1m   [Pulling] Pulling image \"tf\"\n"
	    "pod/mnist-worker-0  Normal   1m   [Scheduled] Successfully assigned "
	    "default/mnist-worker-0 to node-1\n"
	    "pod/mnist-worker-0  Warning  5s   [BackOff] Back-off restarting failed container "
	    "(x3)\n");
	free(s);
	for (int i = 0; i < 4; i++)
		fx_event_free(e[i]);
	fx_job_free(j);
}

TEST(events_hostile_message_stays_on_its_row)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 100);
	struct event *e = fx_event("a", "Pod", "p", "Warning", "Failed",
	                           "Error: x\nFAKE  Normal  1s  [Forged] row\ttab", FX_T0 - 3600);
	struct job_view v = fx_view(j, NULL, 0);
	char *s;

	v.events = (const struct event *const *)&e;
	v.n_events = 1;
	s = FX_RENDER(render_job_events(sb, &v));
	CHECK_STR_EQ(
	    s, "SOURCE  TYPE     AGE  MESSAGE\n"
	       "------  ----     ---  -------\n"
	       "pod/p   Warning  1h   [Failed] Error: x FAKE  Normal  1s  [Forged] row tab\n");
	free(s);
	fx_event_free(e);
	fx_job_free(j);
}
