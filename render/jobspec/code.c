/*
 * Local code (docs/submit.md, "Local code"): the files copied beside a spec into
 * submit/NAME/ travel with the job as one ConfigMap, NAME-code, owned by the job
 * and mounted read-only at code_dir (default /code) in every container of every
 * replica, which also works there unless the spec names a working_dir (a full
 * manifest: unless the container sets workingDir).
 *
 * The job carries the list of files in its arenafs.io/code annotation, so that
 * jobs/NAME/code/ can be listed from the cache alone:
 *
 *     configmap NAME-code
 *     0644 1234 train.py train.py          mode, size, ConfigMap key, path
 *     0755 88 _1 scripts/run.sh
 *
 * A key is the file's own name when it is a valid key and not nested, else "_N".
 * UTF-8 text goes under data, other bytes under binaryData.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/tensorboard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/base64.h"

#define CODE_VOLUME "arenafs-code"

static bool valid_key_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-' || ch == '_' || ch == '.';
}

/* Is path usable as it stands as a ConfigMap key? */
static bool plain_key(const char *path)
{
	size_t len = strlen(path);

	if (len == 0 || len > 253 || strcmp(path, ".") == 0 || strcmp(path, "..") == 0 ||
	    strncmp(path, "..", 2) == 0)
		return false;
	for (const char *p = path; *p; p++)
		if (!valid_key_char(*p))
			return false;
	return true;
}

static bool key_taken(char **keys, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] && strcmp(keys[i], k) == 0)
			return true;
	return false;
}

static void keys_free(char **keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

/* The keys of files, in their order; NULL on ENOMEM. The plain ones first, so that
 * a made-up key is checked against every one of them. */
static char **code_keys(const struct spec_code_file *files, size_t n)
{
	char **keys = calloc(n ? n : 1, sizeof(*keys));
	bool ok = keys != NULL;

	for (size_t i = 0; ok && i < n; i++)
		if (plain_key(files[i].path))
			ok = (keys[i] = strdup(files[i].path)) != NULL;
	for (size_t i = 0; ok && i < n; i++) {
		char k[64];
		size_t extra = 0;

		if (keys[i])
			continue;
		do
			snprintf(k, sizeof(k), "_%zu%.*s", i + 1, (int)extra, "__________________");
		while (key_taken(keys, n, k) && ++extra < 18);
		ok = (keys[i] = strdup(k)) != NULL;
	}
	if (!ok) {
		keys_free(keys, n);
		return NULL;
	}
	return keys;
}

/* Is data[0..len) text a ConfigMap's data can hold (UTF-8, no NUL)? */
static bool is_text(const char *data, size_t len)
{
	json_t *s;

	if (memchr(data, '\0', len))
		return false;
	s = json_stringn(data, len); /* NULL for invalid UTF-8 */
	json_decref(s);
	return s != NULL;
}

/* Every path is UTF-8, or EINVAL naming the first that is not: the ConfigMap's keys
 * and items and the job's annotation are JSON strings, which hold UTF-8 only (a
 * name from a Latin-1 file system, say). The path is shown with its bytes
 * outside printable ASCII as \xNN, since the error file is one line of text. */
static int check_names(const struct spec_code_file *files, size_t n, struct k8s_error *err)
{
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_string(files[i].path);
		char shown[512];
		size_t k = 0;

		json_decref(s);
		if (s)
			continue;
		for (const unsigned char *p = (const unsigned char *)files[i].path;
		     *p && k + 5 < sizeof(shown); p++)
			k += (size_t)snprintf(shown + k, sizeof(shown) - k,
			                      *p < 0x20 || *p >= 0x7f ? "\\x%02x" : "%c", *p);
		return k8s_error_set(err, EINVAL,
		                     "the name of the file %s is not UTF-8, and Kubernetes keeps "
		                     "names as UTF-8 text: rename it or leave it out of the folder",
		                     shown);
	}
	return 0;
}

const char *spec_code_dir(const struct job_spec *s)
{
	return s->manifest || !s->code_dir ? SPEC_DEFAULT_CODE_DIR : s->code_dir;
}

/* The volume and mounts in one pod template's spec. */
static int mount_in_template(const struct job_spec *s, json_t *pod_spec, const json_t *volume)
{
	json_t *vols = json_object_get(pod_spec, "volumes");
	json_t *containers = json_object_get(pod_spec, "containers");
	json_t *c;
	size_t i;
	int rc = 0;

	if (!json_is_object(pod_spec) || !json_is_array(containers))
		return 0;
	if (!json_is_array(vols)) {
		vols = json_array();
		if (!vols || json_object_set_new(pod_spec, "volumes", vols) < 0)
			return -ENOMEM;
	}
	rc |= json_array_append(vols, (json_t *)volume);
	json_array_foreach(containers, i, c)
	{
		json_t *mounts = json_object_get(c, "volumeMounts");
		bool own_dir = s->manifest ? json_object_get(c, "workingDir") != NULL
		                           : s->working_dir_given;

		if (!json_is_array(mounts)) {
			mounts = json_array();
			if (!mounts || json_object_set_new(c, "volumeMounts", mounts) < 0)
				return -ENOMEM;
		}
		rc |= json_array_append_new(mounts, json_pack("{s:s, s:s, s:b}", "name",
		                                              CODE_VOLUME, "mountPath",
		                                              spec_code_dir(s), "readOnly", 1));
		if (!own_dir)
			rc |= json_object_set_new(c, "workingDir", json_string(spec_code_dir(s)));
	}
	return rc < 0 ? -ENOMEM : 0;
}

/* The annotation listing the files (see the top of this file). */
static char *code_annotation(const char *cm, const struct spec_code_file *files, size_t n,
                             char **keys)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	fprintf(f, "configmap %s\n", cm);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%04o %zu %s %s\n", (unsigned)(files[i].mode & 0777), files[i].len,
		        keys[i], files[i].path);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int spec_add_code(const struct job_spec *s, json_t *job, const struct spec_code_file *files,
                  size_t n, struct k8s_error *err)
{
	char cm[128], **keys = code_keys(files, n), *note = NULL;
	json_t *items = json_array(), *volume = NULL, *rspecs, *role, *annotations, *meta;
	const char *key;
	int rc = keys && items ? 0 : -ENOMEM;

	/* A TrainJob's pods come from its runtime: no template here to mount the code in. */
	if (s->kind == JOB_TRAINJOB) {
		keys_free(keys, n);
		json_decref(items);
		return k8s_error_set(err, EINVAL,
		                     "a trainjob ships no local code: its runtime makes the pods; "
		                     "copy the spec alone, or put the code in the image");
	}
	if (rc == 0 && (rc = check_names(files, n, err)) < 0) {
		keys_free(keys, n);
		json_decref(items);
		return rc;
	}
	snprintf(cm, sizeof(cm), "%s-code", s->name);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = json_array_append_new(items, json_pack("{s:s, s:s, s:i}", "key", keys[i], "path",
		                                            files[i].path, "mode",
		                                            (int)(files[i].mode & 0111 ? 0555 : 0444)));
	if (rc == 0)
		volume = json_pack("{s:s, s:{s:s, s:O}}", "name", CODE_VOLUME, "configMap", "name",
		                   cm, "items", items);
	rc = volume ? 0 : -ENOMEM;
	/* Every kind keeps its replicas under spec.<kind>ReplicaSpecs.<role>.template */
	json_object_foreach(json_object_get(job, "spec"), key, rspecs)
	{
		const char *role_name;
		size_t kl = strlen(key);

		if (kl < 12 || strcmp(key + kl - 12, "ReplicaSpecs") != 0 || !json_is_object(rspecs))
			continue;
		json_object_foreach(rspecs, role_name, role)
			if (rc == 0)
				rc = mount_in_template(
				    s, json_object_get(json_object_get(role, "template"), "spec"), volume);
	}
	meta = json_object_get(job, "metadata");
	annotations = json_object_get(meta, "annotations");
	if (rc == 0 && !json_is_object(annotations)) {
		annotations = json_object();
		if (!annotations || json_object_set_new(meta, "annotations", annotations) < 0)
			rc = -ENOMEM;
	}
	if (rc == 0 && (!(note = code_annotation(cm, files, n, keys)) ||
	                json_object_set_new(annotations, SPEC_CODE_ANNOTATION,
	                                    json_string(note)) < 0))
		rc = -ENOMEM;
	if (rc == 0 && strlen(note) > SPEC_ANNOTATIONS_MAX / 2)
		rc = k8s_error_set(err, EFBIG,
		                   "the list of files to ship is %zu bytes, too long for the job's "
		                   "%s annotation: ship fewer files (a tar of them, say)",
		                   strlen(note), SPEC_CODE_ANNOTATION);
	else if (rc)
		rc = k8s_error_set(err, ENOMEM, "out of memory adding the code to the job");
	free(note);
	json_decref(volume);
	json_decref(items);
	keys_free(keys, n);
	return rc;
}

int spec_build_code(const struct job_spec *s, const char *ns, const json_t *created_job,
                    const struct spec_code_file *files, size_t n, json_t **out,
                    struct k8s_error *err)
{
	json_t *owners = NULL, *data = json_object(), *binary = json_object();
	char cm[128], **keys = code_keys(files, n);
	int rc = keys && data && binary ? 0 : -ENOMEM;

	*out = NULL;
	if (rc == 0 && (rc = check_names(files, n, err)) < 0)
		goto out;
	snprintf(cm, sizeof(cm), "%s-code", s->name);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct spec_code_file *f = &files[i];

		if (is_text(f->data, f->len)) {
			rc = json_object_set_new(data, keys[i], json_stringn(f->data, f->len));
		} else {
			char *b64 = k8s_base64_encode(f->data, f->len);

			rc = b64 ? json_object_set_new(binary, keys[i], json_string(b64)) : -1;
			free(b64);
		}
	}
	if (rc) {
		rc = k8s_error_set(err, ENOMEM, "out of memory building the code's ConfigMap");
		goto out;
	}
	if (created_job && (rc = spec_owner_ref(s, created_job, &owners, err)) < 0)
		goto out;
	/* Immutable: the code a job ran with never changes under it (and the kubelet
	 * need not watch it). */
	*out = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:b, s:O, s:O}", "apiVersion", "v1",
	                 "kind", "ConfigMap", "metadata", "name", cm, "namespace", ns, "labels",
	                 SPEC_CODE_ANNOTATION, s->name, "immutable", 1, "data", data,
	                 "binaryData", binary);
	if (*out && owners &&
	    json_object_set(json_object_get(*out, "metadata"), "ownerReferences", owners) < 0) {
		json_decref(*out);
		*out = NULL;
	}
	rc = *out ? 0 : k8s_error_set(err, ENOMEM, "out of memory building the code's ConfigMap");
out:
	json_decref(owners);
	json_decref(data);
	json_decref(binary);
	keys_free(keys, n);
	return rc;
}

/* The first key of a whose value b does not hold alike (NULL: none); a NULL map is
 * empty (the API server leaves an empty binaryData out). */
static const char *first_unlike(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)a, key, v)
		if (!json_equal(v, json_object_get(b, key)))
			return key;
	return NULL;
}

int spec_code_stored(const json_t *sent, const json_t *stored, char *key, size_t size)
{
	static const char *const MAPS[] = {"data", "binaryData"};

	for (size_t i = 0; i < sizeof(MAPS) / sizeof(MAPS[0]); i++) {
		const json_t *a = json_object_get(sent, MAPS[i]), *b = json_object_get(stored, MAPS[i]);
		const char *unlike = first_unlike(a, b);

		if (!unlike)
			unlike = first_unlike(b, a);
		if (unlike) {
			snprintf(key, size, "%s", unlike);
			return -EIO;
		}
	}
	return 0;
}
