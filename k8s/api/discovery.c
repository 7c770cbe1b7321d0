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
#include <stdio.h>
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

/* The versions of Kueue's groups that arenafs reads, newest first. */
static const char *const KUEUE_VERSIONS[] = {"v1beta2", "v1beta1"};

/* Does /apis/group/version list every one of plurals? down: what a 5xx answer means
 * (an aggregated API whose server is down for a moment answers 503). */
static int serves_all(struct k8s_client *c, const char *group, const char *version,
                      const char *const *plurals, bool down, bool *yes, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	json_t *doc = NULL;
	int rc;

	*yes = false;
	strbuf_puts(&path, "/apis/");
	urlpath_escape(&path, group);
	strbuf_putc(&path, '/');
	urlpath_escape(&path, version);
	rc = strbuf_ok(&path) ? k8s_get_json(c, strbuf_str(&path), &doc, err)
	                      : k8s_error_set(err, ENOMEM, "out of memory");
	strbuf_free(&path);
	/* vanished or forbidden: not served; a server down: as the caller says */
	if (rc == -ENOENT || rc == -EACCES || (rc && err->code >= 500)) {
		*yes = rc != -ENOENT && rc != -EACCES && down;
		k8s_error_clear(err);
		return 0;
	}
	if (rc)
		return rc;
	*yes = true;
	for (const char *const *p = plurals; *p && *yes; p++)
		*yes = lists_resource(doc, *p);
	json_decref(doc);
	return 0;
}

int kueue_discover(struct k8s_client *c, struct kueue_api *out, struct k8s_error *err)
{
	static const char *const QUEUES[] = {"workloads", "localqueues", "clusterqueues", NULL};
	static const char *const VISIBLE[] = {"localqueues/pendingworkloads", NULL};
	json_t *apis = NULL;
	bool yes;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = k8s_get_json(c, "/apis", &apis, err);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	for (size_t i = 0; rc == 0 && !out->version[0] && i < 2; i++)
		if (group_has_version(apis, KUEUE_GROUP, KUEUE_VERSIONS[i]) &&
		    (rc = serves_all(c, KUEUE_GROUP, KUEUE_VERSIONS[i], QUEUES, false, &yes, err)) == 0 &&
		    yes)
			snprintf(out->version, sizeof(out->version), "%s", KUEUE_VERSIONS[i]);
	for (size_t i = 0; rc == 0 && out->version[0] && !out->visibility[0] && i < 2; i++)
		if (group_has_version(apis, KUEUE_VISIBILITY_GROUP, KUEUE_VERSIONS[i]) &&
		    /* listed in /apis but its server down at mount: the poller retries */
		    (rc = serves_all(c, KUEUE_VISIBILITY_GROUP, KUEUE_VERSIONS[i], VISIBLE, true, &yes,
		                     err)) == 0 &&
		    yes)
			snprintf(out->visibility, sizeof(out->visibility), "%s", KUEUE_VERSIONS[i]);
	json_decref(apis);
	return rc;
}
