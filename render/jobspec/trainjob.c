/*
 * The TrainJob (Kubeflow Trainer, trainer.kubeflow.org/v1alpha1) of a small spec
 * of type trainjob (docs/spec.md "trainjob"): the runtime it names makes the
 * pods, so the spec only fills spec.runtimeRef and spec.trainer — image,
 * command, numNodes, resourcesPerNode, env — and the job's own labels and
 * annotations, as for every other type.
 *
 * Pure: no I/O. Called by build.c.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/trainjob.h"
#include "render/jobspec/build.h"

#include <errno.h>
#include <stdio.h>

#define TRAINER_GROUP "trainer.kubeflow.org"

/* The spec's env, in its order; NULL (and *oom false) when it has none. */
static json_t *trainer_env(const struct job_spec *s, bool *oom)
{
	json_t *env;
	const char *key;
	json_t *v;
	int rc = 0;

	*oom = false;
	if (!json_object_size(s->env))
		return NULL;
	env = json_array();
	if (!env) {
		*oom = true;
		return NULL;
	}
	json_object_foreach(s->env, key, v) rc |= json_array_append_new(
	    env, json_pack("{s:s, s:O}", "name", key, "value", v));
	if (rc) {
		json_decref(env);
		*oom = true;
		return NULL;
	}
	return env;
}

static json_t *build_trainer(const struct job_spec *s)
{
	bool oom_res, oom_env;
	json_t *res = spec_resources(s, s->gpus, true, &oom_res);
	json_t *env = trainer_env(s, &oom_env);
	json_t *t = json_pack("{s:s, s:[s, s, s], s:I}", "image", s->image, "command", s->shell,
	                      "-c", s->command, "numNodes", (json_int_t)s->workers);
	int rc = t && !oom_res && !oom_env ? 0 : -1;

	if (rc == 0 && res)
		rc = json_object_set(t, "resourcesPerNode", res);
	if (rc == 0 && env)
		rc = json_object_set(t, "env", env);
	json_decref(res);
	json_decref(env);
	if (rc) {
		json_decref(t);
		return NULL;
	}
	return t;
}

int spec_build_trainjob(const struct job_spec *s, const char *ns, json_t **out)
{
	const struct job_kind_info *ki = kinds_info(JOB_TRAINJOB);
	json_t *labels = spec_base_labels(s);
	json_t *annot = json_object();
	json_t *trainer = build_trainer(s);
	json_t *job = NULL;
	char api[128], gpus[32];
	int rc = labels && annot && trainer ? 0 : -1;

	if (rc == 0 && s->labels)
		rc = json_object_update(labels, s->labels);
	if (rc == 0 && s->annotations)
		rc = json_object_update(annot, s->annotations);
	/* Arena's count of the job's GPUs, as on every other type's job */
	snprintf(gpus, sizeof(gpus), "%lld", s->gpus * s->workers);
	if (rc == 0)
		rc = json_object_set_new(annot, SPEC_ANNOT_REQUEST_GPUS, json_string(gpus));
	if (rc == 0)
		rc = json_object_set_new(annot, SPEC_ANNOTATION, json_string(s->text));
	snprintf(api, sizeof(api), "%s/%s", ki->group, ki->version);
	if (rc == 0)
		job = json_pack("{s:s, s:s, s:{s:s, s:s, s:O, s:O}, s:{s:{s:s, s:s, s:s}, s:O}}",
		                "apiVersion", api, "kind", ki->kind_name, "metadata", "name", s->name,
		                "namespace", ns, "labels", labels, "annotations", annot, "spec",
		                "runtimeRef", "name", s->runtime, "apiGroup", TRAINER_GROUP, "kind",
		                s->runtime_kind, "trainer", trainer);
	json_decref(labels);
	json_decref(annot);
	json_decref(trainer);
	if (!job)
		return -ENOMEM;
	*out = job;
	return 0;
}
