/*
 * spec_parse (see spec.h): the text → YAML → either a full manifest or the small
 * spec, validated, plus the text the job keeps in its SPEC_ANNOTATION.
 *
 * The job is named after its staging entry (submit/NAME.yaml, submit/NAME/) when
 * that is a valid job name, whatever the text's own `name:` (or a manifest's
 * metadata.name) says: `cp jobs/A/spec.yaml submit/B.yaml` reruns A's spec as B.
 *
 * The annotation holds the spec as the user wrote it, saying the job's name: a
 * `name:` that differs has its value replaced where it is written, a missing one is
 * put in front (after a `---` line; first in a flow mapping), so that
 * jobs/NAME/spec.yaml names NAME. Each edit is checked by parsing it again; when
 * none says the same as the spec (a name from a merge key, say), the spec is stored
 * as JSON (which is YAML) with the name, losing only its comments and layout.
 *
 * Pure: no I/O. Called by fs/submit/submit_run.c; tested by test_jobspec_*.c.
 */
#include "render/jobspec/spec_internal.h"
#include "render/jobspec/spec.h"
#include "render/jobspec/manifest.h"
#include "render/jobspec/validate.h"
#include "render/jobspec/yaml_probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sync_free(struct spec_sync *y)
{
	free(y->mode);
	free(y->source);
	free(y->branch);
	free(y->image);
	free(y->project);
}

void spec_free(struct job_spec *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->text);
	json_decref(s->manifest);
	free(s->image);
	free(s->command);
	free(s->shell);
	free(s->working_dir);
	free(s->code_dir);
	free(s->worker_command);
	free(s->cpu);
	free(s->memory);
	free(s->share_memory);
	free(s->priority);
	free(s->queue);
	free(s->pull_policy);
	free(s->clean_pod_policy);
	free(s->nproc_per_node);
	free(s->runtime);
	free(s->runtime_kind);
	json_decref(s->env);
	json_decref(s->labels);
	json_decref(s->annotations);
	json_decref(s->selector);
	json_decref(s->data);
	json_decref(s->data_dir);
	json_decref(s->tolerations);
	json_decref(s->pull_secrets);
	sync_free(&s->sync);
	free(s->logdir);
	free(s->tensorboard_image);
	free(s);
}

const char *spec_name(const struct job_spec *s)
{
	return s->name;
}

enum job_kind spec_kind(const struct job_spec *s)
{
	return s->kind;
}

bool spec_wants_tensorboard(const struct job_spec *s)
{
	return !s->manifest && s->tensorboard;
}

bool spec_is_manifest(const struct job_spec *s)
{
	return s->manifest != NULL;
}

const char *spec_text(const struct job_spec *s)
{
	return s->text;
}

static char *copy_text(const char *text, size_t len)
{
	char *t = malloc(len + 1);

	if (t) {
		memcpy(t, text, len);
		t[len] = '\0';
	}
	return t;
}

/* Does text, parsed, equal root with its name set to name? Then it says the same. */
static bool same_with_name(const char *text, const json_t *root, const char *name)
{
	struct yaml_doc *d = NULL;
	json_t *want = json_deep_copy(root);
	bool same = false;

	if (want && json_object_set_new(want, "name", json_string(name)) == 0 &&
	    yaml_parse(text, strlen(text), &d, NULL) == 0)
		same = json_equal(want, yaml_doc_root(d));
	yaml_doc_free(d);
	json_decref(want);
	return same;
}

/* The name as a plain YAML scalar, quoted when YAML 1.1 would read it as a boolean
 * or null (a job may be called "yes"). */
static void name_scalar(const char *name, char *buf, size_t size)
{
	static const char *const WORDS[] = {"y",   "n",    "yes",   "no",   "on",
	                                    "off", "true", "false", "null", NULL};
	bool word = false;

	for (const char *const *w = WORDS; *w && !word; w++)
		word = strcmp(name, *w) == 0;
	snprintf(buf, size, word ? "\"%s\"" : "%s", name);
}

/*
 * Text with a `name:` entry put where it means "this mapping's name": in front;
 * after a leading `---` line; or first in a flow mapping. NULL when the text has
 * no such place (the caller then checks each against the parsed spec).
 */
static char *name_inserted(const char *text, size_t len, const char *name, int how)
{
	const char *end = text + len, *at = NULL;
	const char *fmt = "name: %s\n";
	char head[160], scalar[128];
	char *out = NULL;

	if (how == 0) {
		at = text;
	} else if (how == 1) {
		/* a document start line, after any comments or directives */
		for (const char *p = text; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl)
				break;
			if (end - p >= 3 && strncmp(p, "---", 3) == 0 &&
			    (p[3] == '\n' || p[3] == ' ' || p[3] == '\r')) {
				at = nl + 1;
				break;
			}
			if (*p != '#' && *p != '%' && *p != '\n')
				break;
			p = nl + 1;
		}
	} else {
		/* a flow mapping, after blanks and a `--- ` on its line */
		const char *p = text;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (end - p >= 4 && strncmp(p, "--- ", 4) == 0)
			for (p += 4; p < end && *p == ' '; p++)
				;
		if (p < end && *p == '{') {
			at = p + 1;
			fmt = "name: %s, ";
		}
	}
	if (!at)
		return NULL;
	name_scalar(name, scalar, sizeof(scalar));
	if (snprintf(head, sizeof(head), fmt, scalar) >= (int)sizeof(head))
		return NULL;
	if (asprintf(&out, "%.*s%s%.*s", (int)(at - text), text, head, (int)(end - at), at) < 0)
		return NULL;
	return out;
}

/* Text with the value of its `name:` replaced where it is written, or NULL. */
static char *name_replaced(struct spec_ctx *c, const char *text, size_t len, const char *name)
{
	const struct yaml_node_info *at = yaml_doc_member(c->doc, c->root, "name");
	char scalar[128];
	size_t from, to;
	bool newline;
	char *out = NULL;

	if (!at || !at->spanned)
		return NULL;
	from = yaml_text_offset(text, len, at->span_start);
	to = yaml_text_offset(text, len, at->span_end);
	if (to < from)
		return NULL;
	/* a block scalar (`name: |`) ends with its line's newline: keep it */
	newline = to > from && text[to - 1] == '\n';
	name_scalar(name, scalar, sizeof(scalar));
	/* an empty value (`name:`) is a place right after the colon */
	if (asprintf(&out, "%.*s%s%s%s%.*s", (int)from, text, to == from ? " " : "", scalar,
	             newline ? "\n" : "", (int)(len - to), text + to) < 0)
		return NULL;
	return out;
}

/* The spec as JSON (a YAML document) with the name first: when no edit of the text
 * keeps its meaning. */
static char *as_json(const json_t *root, const char *name)
{
	json_t *obj = json_pack("{s:s}", "name", name);
	const char *key;
	json_t *v;
	char *dump = NULL, *out = NULL;

	if (!obj)
		return NULL;
	json_object_foreach((json_t *)root, key, v)
	{
		if (strcmp(key, "name") != 0 && json_object_set(obj, key, v) < 0) {
			json_decref(obj);
			return NULL;
		}
	}
	dump = json_dumps(obj, JSON_INDENT(2));
	if (dump && asprintf(&out, "%s\n", dump) < 0)
		out = NULL;
	free(dump);
	json_decref(obj);
	return out;
}

/* The SPEC_ANNOTATION text of a small spec (see the file comment). */
static int annotation_text(struct spec_ctx *c, const char *text, size_t len)
{
	struct job_spec *s = c->s;
	const json_t *written = json_object_get(c->root, "name");

	if (!(json_is_string(written) && strcmp(json_string_value(written), s->name) == 0)) {
		for (int how = -1; how < 4; how++) {
			char *named = how < 0    ? name_replaced(c, text, len, s->name)
			              : how < 3  ? name_inserted(text, len, s->name, how)
			                         : as_json(c->root, s->name);

			if (named && same_with_name(named, c->root, s->name)) {
				s->text = named;
				return 0;
			}
			free(named);
		}
	}
	s->text = copy_text(text, len);
	return s->text ? 0 : k8s_error_set(c->err, ENOMEM, "out of memory");
}

/* The job's annotations together must fit the API server's limit. */
static int check_annotation_size(struct spec_ctx *c, size_t len)
{
	size_t total =
	    strlen(SPEC_ANNOTATION) + strlen(c->s->text) + strlen(SPEC_ANNOT_REQUEST_GPUS) + 20;
	const char *key;
	json_t *v;

	json_object_foreach(c->s->annotations, key, v) total += strlen(key) + json_string_length(v);
	if (total > SPEC_ANNOTATIONS_MAX)
		return k8s_error_set(c->err, EFBIG,
		                     "the spec is too large: %zu bytes, where a small spec may have "
		                     "about %d (the job keeps it in its %s annotation, and Kubernetes "
		                     "allows %d bytes of annotations on an object); nothing was "
		                     "submitted",
		                     len, SPEC_ANNOTATIONS_MAX - (int)(total - strlen(c->s->text)),
		                     SPEC_ANNOTATION, SPEC_ANNOTATIONS_MAX);
	return 0;
}

/*
 * Only a manifest may be longer than the annotation a small spec is kept in, and
 * reading a text costs in proportion to it (plus its aliases, up to YAML_MAX_NODES):
 * a longer text with neither apiVersion nor kind at its top is refused before it is
 * read in full. A merge key there might bring them: such a text is read.
 */
static int check_text_size(const char *text, size_t len, struct k8s_error *err)
{
	static const char *const MANIFEST_KEYS[] = {"apiVersion", "kind", "<<", NULL};

	if (len <= SPEC_ANNOTATIONS_MAX || yaml_probe_top_key(text, len, MANIFEST_KEYS))
		return 0;
	return k8s_error_set(err, EFBIG,
	                     "the spec is too large: %zu bytes, where a small spec may have at "
	                     "most %d (the job keeps it in its %s annotation, and Kubernetes "
	                     "allows %d bytes of annotations on an object); only a manifest "
	                     "(apiVersion and kind at its top) may be longer; nothing was "
	                     "submitted",
	                     len, SPEC_ANNOTATIONS_MAX, SPEC_ANNOTATION, SPEC_ANNOTATIONS_MAX);
}

int spec_parse(const char *text, size_t len, const char *entry_name,
               const bool served[JOB_KIND_COUNT], struct job_spec **out, struct k8s_error *err)
{
	struct yaml_doc *doc = NULL;
	struct spec_ctx c = {0};
	struct job_spec *s;
	int rc;

	*out = NULL;
	k8s_error_clear(err);
	rc = check_text_size(text, len, err);
	if (rc < 0)
		return rc;
	rc = yaml_parse(text, len, &doc, err);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s) {
		yaml_doc_free(doc);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	c.doc = doc;
	c.root = yaml_doc_root(doc);
	c.s = s;
	c.served = served;
	c.entry_name = entry_name;
	c.err = err;
	if (json_is_null(c.root)) {
		rc =
		    k8s_error_set(err, EINVAL,
		                  "the spec is empty: it needs at least type:, image: and command: "
		                  "(see " SPEC_DOC ")");
	} else if (json_is_object(c.root) &&
	           (json_object_get(c.root, "apiVersion") || json_object_get(c.root, "kind"))) {
		rc = spec_validate_manifest(&c);
		if (rc == 0 && !(s->text = copy_text(text, len)))
			rc = k8s_error_set(err, ENOMEM, "out of memory");
	} else {
		rc = spec_validate_small(&c);
		if (rc == 0)
			rc = annotation_text(&c, text, len);
		if (rc == 0)
			rc = check_annotation_size(&c, len);
	}
	yaml_doc_free(doc);
	if (rc < 0) {
		spec_free(s);
		return rc;
	}
	*out = s;
	return 0;
}
