/* Tests render/data.c (data/list and its JSON and YAML forms) and the decoding it
 * stands on: a claim (pvc_decode) and the claims a job's pod templates mount (job_decode's
 * claims). */
#include "render/render.h"
#include "render/data.h"
#include "render/job_info.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <stdlib.h>

#include "k8s/base/timefmt.h"

#define T0 1764932400   /* 2025-12-05T11:00:00Z */

static struct pvc *claim(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	struct pvc *p = o ? pvc_decode(o) : NULL;

	json_decref(o);
	return p;
}

static struct job *pytorch(const char *name, const char *volumes)
{
	char text[2048];
	json_t *o;
	struct job *j;

	snprintf(text, sizeof(text),
	         "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":"
	         "{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"u-%s\"},\"spec\":"
	         "{\"pytorchReplicaSpecs\":{\"Master\":{\"template\":{\"spec\":{\"containers\":"
	         "[{\"name\":\"pytorch\",\"image\":\"x\"}],\"volumes\":%s}}},"
	         "\"Worker\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":"
	         "[{\"name\":\"pytorch\",\"image\":\"x\"}],\"volumes\":%s}}}}}}",
	         name, name, volumes, volumes);
	o = json_loads(text, 0, NULL);
	j = o ? job_decode(o, JOB_PYTORCHJOB) : NULL;
	json_decref(o);
	return j;
}

#define BOUND                                                                                      \
	"{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"imagenet\",\"namespace\":"    \
	"\"default\",\"uid\":\"u1\",\"creationTimestamp\":\"2025-12-05T10:00:00Z\",\"annotations\":" \
	"{\"description\":\"ImageNet 2012\",\"owner\":\"alice\",\"other\":\"dropped\"}},\"spec\":"   \
	"{\"accessModes\":[\"ReadWriteOnce\",\"ReadOnlyMany\",7],\"resources\":{\"requests\":"      \
	"{\"storage\":\"1Gi\"}},\"storageClassName\":\"\",\"volumeName\":\"pv-imagenet\"},"         \
	"\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\"2Gi\"},\"accessModes\":"       \
	"[\"ReadWriteOnce\"]}}"

#define PENDING                                                                                    \
	"{\"metadata\":{\"name\":\"scratch\",\"namespace\":\"default\",\"uid\":\"u2\","             \
	"\"creationTimestamp\":\"2025-12-05T10:59:30Z\"},\"spec\":{\"accessModes\":"                \
	"[\"ReadWriteMany\"],\"resources\":{\"requests\":{\"storage\":\"500Mi\"}},"                 \
	"\"storageClassName\":\"fast\"},\"status\":{\"phase\":\"Pending\"}}"

TEST(data_claim_decodes_what_data_list_shows)
{
	struct pvc *b = claim(BOUND), *p = claim(PENDING);
	json_t *bad = json_loads("{\"metadata\":{}}", 0, NULL);

	CHECK(b && p);
	if (b && p) {
		CHECK_STR_EQ(b->phase, "Bound");
		CHECK_STR_EQ(b->capacity, "2Gi");
		CHECK_STR_EQ(b->requested, "1Gi");
		CHECK_STR_EQ(b->access_modes, "ReadWriteOnce,ReadOnlyMany");   /* 7 is no mode */
		CHECK_STR_EQ(b->storage_class, "");
		CHECK_STR_EQ(b->volume, "pv-imagenet");
		CHECK_STR_EQ(b->description, "ImageNet 2012");
		CHECK_STR_EQ(b->owner, "alice");
		CHECK_STR_EQ(p->capacity, "");
		CHECK_STR_EQ(p->storage_class, "fast");
		CHECK_STR_EQ(p->description, "");
	}
	CHECK(pvc_decode(bad) == NULL);   /* no name: no claim */
	json_decref(bad);
	pvc_free(b);
	pvc_free(p);
}

TEST(data_job_claims_are_its_templates_claims_once_each)
{
	struct job *a = pytorch("train", "[{\"name\":\"d\",\"persistentVolumeClaim\":"
	                                 "{\"claimName\":\"imagenet\"}},{\"name\":\"s\","
	                                 "\"persistentVolumeClaim\":{\"claimName\":\"scratch\"}},"
	                                 "{\"name\":\"e\",\"emptyDir\":{}}]");
	struct job *n = pytorch("plain", "[{\"name\":\"e\",\"emptyDir\":{}}]");
	struct job *odd = pytorch("odd", "[{\"name\":\"d\",\"persistentVolumeClaim\":"
	                                 "{\"claimName\":5}},{\"persistentVolumeClaim\":"
	                                 "{\"claimName\":\"\"}}]");

	CHECK(a && n && odd);
	if (a && n && odd) {
		CHECK_STR_EQ(a->claims, "imagenet,scratch");   /* both templates: once each */
		CHECK_STR_EQ(n->claims, "");
		CHECK_STR_EQ(odd->claims, "");
		CHECK(list_has(a->claims, "scratch") && list_has(a->claims, "imagenet") &&
		      !list_has(a->claims, "image") && !list_has(a->claims, "scratch2") &&
		      !list_has("", "x"));
	}
	job_free(a);
	job_free(n);
	job_free(odd);
}

TEST(data_list_table)
{
	struct pvc *c[2] = {claim(BOUND), claim(PENDING)};
	struct job *j[2] = {pytorch("train", "[{\"persistentVolumeClaim\":"
	                                     "{\"claimName\":\"imagenet\"}}]"),
	                    pytorch("eval", "[{\"persistentVolumeClaim\":"
	                                    "{\"claimName\":\"imagenet\"}}]")};
	struct data_view v = {(const struct pvc *const *)c, 2, (const struct job *const *)j, 2,
	                      T0, NULL, "team-a"};
	char *s;

	CHECK(c[0] && c[1] && j[0] && j[1]);
	if (!c[0] || !c[1] || !j[0] || !j[1])
		goto out;
	s = FX_RENDER(render_data_list(sb, &v));
	CHECK_STR_EQ(s, "NAME      STATUS   CAPACITY  ACCESSMODE                  CLASS   JOBS        "
	                "DESCRIPTION    OWNER  AGE\n"
	                "imagenet  Bound    2Gi       ReadWriteOnce,ReadOnlyMany  <none>  train,eval  "
	                "ImageNet 2012  alice  1h\n"
	                "scratch   Pending  500Mi     ReadWriteMany               fast    <none>      "
	                "                      30s\n");
	free(s);
	/* the same claims as JSON: lists as lists, times RFC 3339, age a number */
	s = FX_RENDER(render_data_list_json(sb, &v));
	CHECK_STR_CONTAINS(s, "[\n    {\n        \"name\": \"imagenet\",\n");
	CHECK_STR_CONTAINS(s, "\"accessModes\": [\n            \"ReadWriteOnce\",\n"
	                      "            \"ReadOnlyMany\"\n        ],\n");
	CHECK_STR_CONTAINS(s, "\"jobs\": [\n            \"train\",\n            \"eval\"\n        ],");
	CHECK_STR_CONTAINS(s, "\"creationTimestamp\": \"2025-12-05T10:00:00Z\",\n"
	                      "        \"age\": 3600\n");
	CHECK_STR_CONTAINS(s, "\"status\": \"Pending\",\n        \"capacity\": \"\",\n"
	                      "        \"requested\": \"500Mi\",");
	CHECK_STR_CONTAINS(s, "\"jobs\": [],");
	free(s);
	s = FX_RENDER(render_data_list_yaml(sb, &v));
	CHECK_STR_CONTAINS(s, "- accessModes:\n  - ReadWriteOnce\n  - ReadOnlyMany\n  age: 3600\n");
	free(s);
	v.n_pvcs = 0;
	s = FX_RENDER(render_data_list_json(sb, &v));
	CHECK_STR_EQ(s, "[]\n");
	free(s);
	s = FX_RENDER(render_data_list(sb, &v));
	CHECK_STR_EQ(s, "NAME  STATUS  CAPACITY  ACCESSMODE  CLASS  JOBS  DESCRIPTION  OWNER  AGE\n"
	                "No PersistentVolumeClaims in this namespace.\n");
	free(s);
	/* claims the credentials may not list: the 403, never an empty table */
	v.forbidden = "persistentvolumeclaims is forbidden: User \"x\" cannot list\nresource";
	s = FX_RENDER(render_data_list(sb, &v));
	CHECK_STR_EQ(s, "Forbidden (403): these credentials may not list the PersistentVolumeClaims "
	                "of namespace team-a (kubectl auth can-i list persistentvolumeclaims -n "
	                "team-a); the API server says: persistentvolumeclaims is forbidden: User "
	                "\"x\" cannot list resource\n");
	free(s);
out:
	for (int i = 0; i < 2; i++) {
		pvc_free(c[i]);
		job_free(j[i]);
	}
}
