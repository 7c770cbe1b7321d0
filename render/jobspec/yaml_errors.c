/*
 * The YAML reader's error messages (yaml_errors.h). libyaml counts lines and
 * columns from 0; people, editors and Kubernetes' messages from 1.
 *
 * Pure: no I/O, no locks. Called by yaml_parse.c; tested through
 * test_jobspec_yaml_parse.c.
 */
#include "render/jobspec/yaml_errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int yaml_fail_at(struct k8s_error *err, yaml_mark_t mark, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return k8s_error_set(err, EINVAL, "line %zu, column %zu: %s", mark.line + 1,
	                     mark.column + 1, what);
}

int yaml_syntax_error(const yaml_parser_t *p, struct k8s_error *err)
{
	if (p->error == YAML_MEMORY_ERROR)
		return k8s_error_set(err, ENOMEM, "out of memory while parsing YAML");
	if (p->error == YAML_READER_ERROR)
		return k8s_error_set(
		    err, EINVAL, "YAML: %s at byte %zu (the text must be UTF-8)",
		    p->problem ? p->problem : "unreadable input", p->problem_offset);
	if (p->context)
		return k8s_error_set(
		    err, EINVAL,
		    "line %zu, column %zu: YAML syntax error: %s (%s that starts at "
		    "line %zu, column %zu)",
		    p->problem_mark.line + 1, p->problem_mark.column + 1,
		    p->problem ? p->problem : "invalid YAML", p->context, p->context_mark.line + 1,
		    p->context_mark.column + 1);
	return k8s_error_set(err, EINVAL, "line %zu, column %zu: YAML syntax error: %s",
	                     p->problem_mark.line + 1, p->problem_mark.column + 1,
	                     p->problem ? p->problem : "invalid YAML");
}
