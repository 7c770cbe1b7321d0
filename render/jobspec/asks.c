/*
 * What a job object asks of the cluster beyond itself (asks.h): its
 * PriorityClasses, its LocalQueue, its Trainer runtime. Pure. Called by
 * fs/submit/submit_run.c; tested by tests/unit/test_jobspec_asks.c.
 */
#include "render/jobspec/asks.h"
#include "k8s/objects/kinds.h"

#include <string.h>

static void collect(const json_t *v, const char **names, size_t *n, size_t max);

static void collect_member(const char *key, const json_t *v, const char **names, size_t *n,
                           size_t max)
{
	if (strcmp(key, "priorityClassName") == 0 && json_is_string(v)) {
		const char *name = json_string_value(v);

		for (size_t i = 0; i < *n; i++)
			if (strcmp(names[i], name) == 0)
				return;
		if (*n < max)
			names[(*n)++] = name;
	} else {
		collect(v, names, n, max);
	}
}

static void collect(const json_t *v, const char **names, size_t *n, size_t max)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_array(v))
		json_array_foreach(v, i, item)
			collect(item, names, n, max);
	else if (json_is_object(v))
		json_object_foreach((json_t *)v, key, item)
			collect_member(key, item, names, n, max);
}

size_t spec_priority_classes(const json_t *job, const char **names, size_t max)
{
	size_t n = 0;

	collect(job, names, &n, max);
	return n;
}

const char *spec_queue_of(const json_t *job)
{
	const json_t *labels = json_object_get(json_object_get(job, "metadata"), "labels");

	return json_string_value(json_object_get(labels, KUEUE_QUEUE_LABEL));
}

bool spec_runtime_of(const json_t *job, const char **kind, const char **name)
{
	const json_t *ref = json_object_get(json_object_get(job, "spec"), "runtimeRef");
	const char *what = json_string_value(json_object_get(job, "kind"));

	*kind = json_string_value(json_object_get(ref, "kind"));
	*name = json_string_value(json_object_get(ref, "name"));
	return what && strcmp(what, "TrainJob") == 0 && *name;
}
