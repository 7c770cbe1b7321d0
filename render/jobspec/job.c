/*
 * The job object of a checked spec (spec_build_job, spec.h): a full manifest as
 * given (manifest.c), a TrainJob (trainjob.c) or a small spec's job (build.c),
 * with the label of its Kueue queue. Apart from build.c so that trainjob.c, which
 * uses build.c's pieces, and build.c call no function of each other.
 *
 * Pure: no I/O. Called by fs/submit/submit_run.c; tested by
 * tests/unit/test_jobspec_build.c.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/build.h"
#include "render/jobspec/manifest.h"
#include "render/jobspec/trainjob.h"

#include <errno.h>

#include "k8s/names.h"

/* `queue: NAME`: the job (not its pods, whose templates share its other labels) is
 * labelled for Kueue, which suspends it until its LocalQueue admits it. */
static int put_queue_label(const struct job_spec *s, json_t *job)
{
	json_t *meta = json_object_get(job, "metadata");
	json_t *labels;

	if (!s->queue)
		return 0;
	/* a copy: the pod templates hold the same labels object */
	labels = json_copy(json_object_get(meta, "labels"));
	if (!labels)
		labels = json_object();
	if (!labels)
		return -1;
	if (json_object_set_new(labels, SPEC_QUEUE_LABEL, json_string(s->queue)) < 0) {
		json_decref(labels);
		return -1;
	}
	return json_object_set_new(meta, "labels", labels) < 0 ? -1 : 0;
}

int spec_build_job(const struct job_spec *s, const char *ns, json_t **out, struct k8s_error *err)
{
	*out = NULL;
	if (!ns || !k8s_is_dns1123_label(ns))
		return k8s_error_set(err, EINVAL, "\"%s\" is not a namespace name", ns ? ns : "");
	if (s->manifest)
		return spec_build_manifest(s, ns, out, err);
	if ((s->kind == JOB_TRAINJOB ? spec_build_trainjob(s, ns, out)
	                             : spec_build_small(s, ns, out)) < 0 ||
	    put_queue_label(s, *out) < 0) {
		json_decref(*out);
		*out = NULL;
		return k8s_error_set(err, ENOMEM, "out of memory building the %s object",
		                     kinds_info(s->kind)->kind_name);
	}
	return 0;
}
