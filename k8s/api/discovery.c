/*
 * kinds_discover() (see discovery.h): which job kinds the cluster serves, from the
 * legacy discovery documents (/apis, then /apis/GROUP/VERSION), which every API
 * server still answers when asked for plain JSON.
 *
 * MPIJob: training-operator's kubeflow.org/v1 and mpi-operator's v2beta1 are
 * versions of one CRD (mpijobs.kubeflow.org), so a cluster normally serves one.
 * Should a CRD serve both, they are the same objects: only v1 is reported, the
 * one kinds_by_type() picks, so that no job shows up twice.
 */
#include "k8s/api/discovery.h"

#include <errno.h>
#include <string.h>

#include "k8s/http/client.h"
#include "k8s/http/urlpath.h"
#include "k8s/base/strbuf.h"

/* Does /apis list group with version? */
static bool group_has_version(json_t *apis, const char *group, const char *version)
{
	json_t *g, *v;
	size_t i, j;

	json_array_foreach(json_object_get(apis, "groups"), i, g)
	{
		if (!json_is_string(json_object_get(g, "name")) ||
		    strcmp(json_string_value(json_object_get(g, "name")), group) != 0)
			continue;
		json_array_foreach(json_object_get(g, "versions"), j, v)
		{
			const char *ver = json_string_value(json_object_get(v, "version"));

			if (ver && strcmp(ver, version) == 0)
				return true;
		}
	}
	return false;
}

static bool lists_resource(json_t *resources, const char *plural)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(resources, "resources"), i, r)
	{
		const char *name = json_string_value(json_object_get(r, "name"));

		if (name && strcmp(name, plural) == 0)
			return true;
	}
	return false;
}

int kinds_discover(struct k8s_client *c, bool served[JOB_KIND_COUNT], struct k8s_error *err)
{
	json_t *apis = NULL, *gv_doc[JOB_KIND_COUNT] = {0};
	bool asked[JOB_KIND_COUNT] = {0};
	int rc;

	memset(served, 0, sizeof(bool) * JOB_KIND_COUNT);
	rc = k8s_get_json(c, "/apis", &apis, err);
	if (rc == -ENOENT)
		return 0; /* no API groups at all: nothing is served */
	if (rc)
		return rc;
	for (int k = 0; k < JOB_KIND_COUNT; k++) {
		const struct job_kind_info *ki = kinds_info(k);
		int same = -1;

		if (!group_has_version(apis, ki->group, ki->version))
			continue;
		/* kinds of one group version share one document */
		for (int p = 0; p < k && same < 0; p++)
			if (asked[p] && strcmp(kinds_info(p)->group, ki->group) == 0 &&
			    strcmp(kinds_info(p)->version, ki->version) == 0)
				same = p;
		if (same < 0) {
			struct strbuf path = STRBUF_INIT;

			strbuf_puts(&path, "/apis/");
			urlpath_escape(&path, ki->group);
			strbuf_putc(&path, '/');
			urlpath_escape(&path, ki->version);
			rc = strbuf_ok(&path) ? k8s_get_json(c, strbuf_str(&path), &gv_doc[k], err)
			                      : k8s_error_set(err, ENOMEM, "out of memory");
			strbuf_free(&path);
			asked[k] = true;
			/* a group version that vanished or that we may not read is not served */
			if (rc == -ENOENT || rc == -EACCES) {
				rc = 0;
				continue;
			}
			if (rc)
				goto out;
			same = k;
		}
		served[k] = gv_doc[same] && lists_resource(gv_doc[same], ki->plural);
	}
	if (served[JOB_MPIJOB] && served[JOB_MPIJOB_V2])
		served[JOB_MPIJOB_V2] = false;
	k8s_error_clear(err);
out:
	json_decref(apis);
	for (int k = 0; k < JOB_KIND_COUNT; k++)
		json_decref(gv_doc[k]);
	return rc;
}
