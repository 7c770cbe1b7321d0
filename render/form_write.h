/*
 * render/form_write.c's face: the writer of the tables' JSON and YAML forms
 * (cluster/list.json, info.yaml, data/list.json, cluster/queues.json, ...). A
 * renderer says the document once, value by value, and it is written straight into
 * its strbuf as JSON (jansson's json_dumps with JSON_INDENT(4) | JSON_PRESERVE_ORDER,
 * Go's MarshalIndent with four spaces: Arena's) or as YAML (render/yaml_emit.c's
 * layout, keys sorted: kubectl's), byte for byte what building a jansson tree and
 * dumping it wrote, without the tree (issue 36: the tree cost 10× the table).
 *
 * Keys are given where a value goes in an object and NULL where it goes in an array
 * (and at the top); a key must live until its object ends (YAML sorts by it then).
 * Strings that are not UTF-8 are written with U+FFFD for each bad byte: a form is
 * always one whole document. Pure: no I/O, no locks.
 * Tested by tests/unit/test_render_form_write.c, against jansson and yaml_emit.c.
 */
#ifndef ARENAFS_RENDER_FORM_WRITE_H
#define ARENAFS_RENDER_FORM_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"

/* The deepest a form nests (a job's list: array, job, instance, gpuMetrics). */
#define FORM_DEPTH_MAX 12

struct form_frame {
	bool object;            /* an object (a mapping), else an array (a sequence) */
	bool in_sequence;       /* YAML: an item of a sequence ("- key: v") */
	int indent;             /* YAML: the column of its keys or dashes */
	size_t count;           /* values written in it so far */
	size_t first_entry;     /* YAML objects: its first entry in form.entries */
};

struct form_entry {             /* YAML: one key of an open object and where its text is */
	const char *key;
	size_t at, end;         /* end: known when the object closes */
};

struct form {
	struct strbuf *sb;
	bool yaml;
	bool failed;            /* too deep or no memory: render_form_finish sets sb->oom */
	int depth;              /* frames open */
	struct form_frame frames[FORM_DEPTH_MAX];
	struct form_entry *entries;     /* YAML: the entries of every open object */
	size_t n_entries, cap_entries;
	struct strbuf scratch;          /* YAML: where an object's entries are sorted */
	struct strbuf cut;              /* YAML: a string of render_form_stringn, ended */
};

void render_form_init(struct form *f, struct strbuf *sb, bool yaml);
/* Ends the document (JSON: its newline; a frame left open is a bug) and frees the
 * writer's memory; a failure sets sb->oom. */
void render_form_finish(struct form *f);

void render_form_object(struct form *f, const char *key);   /* opens {...} */
void render_form_array(struct form *f, const char *key);    /* opens [...] */
void render_form_end(struct form *f);                       /* closes the last opened */

void render_form_string(struct form *f, const char *key, const char *s);
void render_form_stringn(struct form *f, const char *key, const char *s, size_t len);
void render_form_int(struct form *f, const char *key, int64_t n);
void render_form_bool(struct form *f, const char *key, bool b);
void render_form_null(struct form *f, const char *key);
/* A string, or null when s is NULL. */
void render_form_string_or_null(struct form *f, const char *key, const char *s);
/* A number as a script reported it ("0.231", "42"): a number when it is one in JSON's
 * grammar (in YAML, a real keeps a '.' and a signed exponent, as YAML 1.1 reads
 * floats), else the string. */
void render_form_number_text(struct form *f, const char *key, const char *text);
/* A comma-joined list ("a,b", as the objects keep theirs) as an array of its items;
 * [] for "". */
void render_form_comma_list(struct form *f, const char *key, const char *list);

#endif
