/*
 * JSON → YAML text, for spec.yaml of jobs arenafs did not create. The layout is
 * kubectl's (`kubectl get -o yaml`, which is go-yaml v2 through sigs.k8s.io/yaml):
 * block style, two-space indent, sequences at their key's column, keys sorted.
 *
 * The text reads back as the same JSON under YAML 1.1 resolution (PyYAML's
 * safe_load, go-yaml v2, render/jobspec/yaml_parse.c): strings that would read as
 * something else (numbers, booleans, null, yes/no/on/off/y/n, timestamps,
 * ".inf", "<<", "=") are double-quoted, as are strings with characters YAML
 * cannot hold raw; multi-line strings are literal blocks (|, |-, |+) when that
 * keeps them exact, else double-quoted with escapes; empty maps and lists are
 * {} and []; reals keep their shortest exact form and always read as floats.
 *
 * Pure: no I/O. Used by render/job_files.c, render/form_write.c and
 * fs/submit/submit_run.c (check/);
 * tested by test_render_yaml_emit.c.
 */
#ifndef ARENAFS_RENDER_YAML_EMIT_H
#define ARENAFS_RENDER_YAML_EMIT_H

#include <jansson.h>

#include "k8s/base/strbuf.h"

/* Appends v as one YAML document (no "---"), ending in a newline. */
void render_yaml_emit(struct strbuf *sb, const json_t *v);

/* Appends an object as `kubectl get -o yaml` shows it, after a "---" line: its
 * metadata.managedFields left out (the API server's bookkeeping of who set which
 * field, not part of what a user wrote). For check/'s dry-run answers. */
void render_yaml_emit_object(struct strbuf *sb, const json_t *obj);

/* For render/form_write.c, which writes the same layout without a jansson tree: a
 * string as a scalar (plain, a literal block with its lines at block_indent, -1 for
 * never, or double-quoted), and a mapping's key with its colon, written after the
 * indentation of its entry at indent ("? key" on a line of its own when too long). */
void render_yaml_put_string(struct strbuf *sb, const char *s, size_t len, int block_indent);
void render_yaml_put_key(struct strbuf *sb, const char *key, int indent);
/* A real in its shortest exact form, always read back as a float ("1.0", "1.0e+20"). */
void render_yaml_put_real(struct strbuf *sb, double d);

#endif
