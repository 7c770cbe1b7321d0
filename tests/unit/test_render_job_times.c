/*
 * Tests render/job_times.c: when a job's Duration starts and ends, as Arena counts
 * them (status.startTime, else the creation for MPI; completionTime, else the final
 * condition, else the launcher's containers), and whether it has ended.
 */
#include "render/job_times.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

TEST(job_times_from_start_to_completion)
{
	struct job *j = fx_job(JOB_TFJOB, "mnist", FX_T0 - 700);
	struct job_view v = fx_view(j, NULL, 0);

	/* not started: no start yet, and Duration is its wait since creation */
	CHECK(render_job_start(&v) == 0);
	CHECK(render_job_duration(&v) == 700);
	CHECK(!render_job_ended(&v) && render_job_end(&v) == 0);
	j->start_time = FX_T0 - 600;
	CHECK(render_job_start(&v) == FX_T0 - 600);
	CHECK(render_job_duration(&v) == 600);
	/* ended by its condition: the condition's time, until completionTime says */
	fx_job_condition(j, "Succeeded", true, FX_T0 - 100);
	CHECK(render_job_ended(&v));
	CHECK(render_job_end(&v) == FX_T0 - 100);
	CHECK(render_job_duration(&v) == 500);
	j->completion_time = FX_T0 - 50;
	CHECK(render_job_end(&v) == FX_T0 - 50);
	CHECK(render_job_duration(&v) == 550);
	fx_job_free(j);
}

TEST(job_times_of_mpi_count_from_creation_to_the_launcher_finishing)
{
	struct job *j = fx_job(JOB_MPIJOB_V2, "hvd", FX_T0 - 300);
	struct pod *p = fx_pod("hvd-launcher", j, "launcher", -1, POD_FAILED);
	const struct pod *pods[] = {p};
	struct job_view v = fx_view(j, pods, 1);

	fx_state(&fx_container(p, "mpi", 0)->state, CONTAINER_TERMINATED, "Error", 1,
		 FX_T0 - 290, FX_T0 - 90);
	CHECK(render_job_start(&v) == FX_T0 - 300);
	fx_job_condition(j, "Failed", true, 0);
	CHECK(render_job_ended(&v));
	CHECK(render_job_end(&v) == FX_T0 - 90);
	CHECK(render_job_duration(&v) == 210);
	fx_pod_free(p);
	fx_job_free(j);
}
