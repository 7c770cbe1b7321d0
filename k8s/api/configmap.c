/*
 * Reading one ConfigMap (configmap.h): one GET (its path checked by urlpath.h), then its data and
 * binaryData into byte strings. A data value is a JSON string (UTF-8, which may
 * hold NUL as \u0000): its bytes are taken whole, by length. binaryData is
 * base64, as the API server encodes []byte.
 */
#include "k8s/api/configmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/base64.h"
#include "k8s/http/urlpath.h"
#include "k8s/base/strbuf.h"

void k8s_configmap_free(struct k8s_configmap *cm)
{
	if (!cm)
		return;
	for (size_t i = 0; i < cm->n_files; i++) {
		free(cm->files[i].key);
		free(cm->files[i].data);
	}
	free(cm->files);
	for (size_t i = 0; i < cm->n_owners; i++)
		free(cm->owner_uids[i]);
	free(cm->owner_uids);
	free(cm->uid);
	free(cm);
}

/* Appends the files of one map (data or binaryData). 0 or -errno. */
static int add_files(struct k8s_configmap *cm, const json_t *map, bool binary,
		     struct k8s_error *err)
{
	const char *key;
	json_t *v;

	if (!map)
		return 0;
	if (!json_is_object(map))
		return k8s_error_set(err, EINVAL, "%s is not a map", binary ? "binaryData" : "data");
	json_object_foreach((json_t *)map, key, v) {
		struct k8s_configmap_file *f = &cm->files[cm->n_files];

		if (!json_is_string(v))
			return k8s_error_set(err, EINVAL, "the value of key %s is not a string", key);
		f->key = strdup(key);
		if (!f->key)
			return k8s_error_set(err, ENOMEM, "out of memory");
		if (binary) {
			f->data = k8s_base64_decode(json_string_value(v), &f->len);
			if (!f->data) {
				int e = errno == ENOMEM ? ENOMEM : EINVAL;

				free(f->key);
				return k8s_error_set(err, e, "binaryData %s is not base64", key);
			}
		} else {
			f->len = json_string_length(v);
			f->data = malloc(f->len + 1);
			if (!f->data) {
				free(f->key);
				return k8s_error_set(err, ENOMEM, "out of memory");
			}
			memcpy(f->data, json_string_value(v), f->len);
			f->data[f->len] = '\0';
		}
		cm->bytes += f->len;
		cm->n_files++;
	}
	return 0;
}

static int add_owners(struct k8s_configmap *cm, const json_t *refs, struct k8s_error *err)
{
	size_t i;
	json_t *r;

	if (!json_is_array(refs) || json_array_size(refs) == 0)
		return 0;
	cm->owner_uids = calloc(json_array_size(refs), sizeof(*cm->owner_uids));
	if (!cm->owner_uids)
		return k8s_error_set(err, ENOMEM, "out of memory");
	json_array_foreach(refs, i, r) {
		const char *uid = json_string_value(json_object_get(r, "uid"));

		if (!uid)
			continue;
		if (!(cm->owner_uids[cm->n_owners] = strdup(uid)))
			return k8s_error_set(err, ENOMEM, "out of memory");
		cm->n_owners++;
	}
	return 0;
}

int k8s_configmap_decode(const json_t *obj, struct k8s_configmap **out, struct k8s_error *err)
{
	const json_t *md = json_object_get(obj, "metadata");
	const json_t *data = json_object_get(obj, "data");
	const json_t *bin = json_object_get(obj, "binaryData");
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *uid = json_string_value(json_object_get(md, "uid"));
	struct k8s_configmap *cm;
	size_t n = json_object_size(data) + json_object_size(bin);
	int ret;

	*out = NULL;
	if (!json_is_object(obj) || (kind && strcmp(kind, "ConfigMap") != 0))
		return k8s_error_set(err, EINVAL, "not a ConfigMap");
	cm = calloc(1, sizeof(*cm));
	if (!cm || !(cm->uid = strdup(uid ? uid : "")) ||
	    (n && !(cm->files = calloc(n, sizeof(*cm->files))))) {
		k8s_configmap_free(cm);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	cm->immutable = json_is_true(json_object_get(obj, "immutable"));
	ret = add_owners(cm, json_object_get(md, "ownerReferences"), err);
	if (!ret)
		ret = add_files(cm, data, false, err);
	if (!ret)
		ret = add_files(cm, bin, true, err);
	if (ret) {
		k8s_configmap_free(cm);
		return ret;
	}
	*out = cm;
	return 0;
}

int k8s_configmap_get(struct k8s_client *c, const char *ns, const char *name,
		      struct k8s_configmap **out, struct k8s_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct k8s_response r;
	json_error_t jerr;
	json_t *obj;
	int ret;

	*out = NULL;
	ret = urlpath_resource(&path, "/api/v1", ns, "configmaps", name, NULL, err);
	if (!ret)
		ret = k8s_request(c, "GET", strbuf_str(&path), NULL, NULL, &r, err);
	if (ret) {
		strbuf_free(&path);
		return ret;
	}
	/* k8s_get_json's parse, but a text file may hold NUL (kubectl puts any valid
	 * UTF-8 in data, and NUL is): its bytes are taken by length */
	obj = json_loadb(r.body, r.len, JSON_ALLOW_NUL, &jerr);
	k8s_response_free(&r);
	if (!obj)
		ret = k8s_error_set(err, EIO, "the answer to GET %s is not JSON: %s",
				    strbuf_str(&path), jerr.text);
	else
		ret = k8s_configmap_decode(obj, out, err);
	json_decref(obj);
	strbuf_free(&path);
	return ret;
}

const struct k8s_configmap_file *k8s_configmap_find(const struct k8s_configmap *cm,
						    const char *key)
{
	for (size_t i = 0; i < cm->n_files; i++)
		if (strcmp(cm->files[i].key, key) == 0)
			return &cm->files[i];
	return NULL;
}
