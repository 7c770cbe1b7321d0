/*
 * A look at a YAML text's top-level keys from libyaml's events alone: no tree is
 * built, no alias resolved, nothing kept. For deciding what a text may be before
 * paying for reading it in full (render/jobspec/spec.c: only a manifest may be longer than a
 * small spec's annotation).
 *
 * Pure: no I/O. Called by render/jobspec/spec.c; tested through test_jobspec_spec.c.
 */
#ifndef ARENAFS_SPEC_YAML_PROBE_H
#define ARENAFS_SPEC_YAML_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Does the first document's root mapping have one of keys (NULL-terminated) at its
 * top level, as a plain or quoted scalar? Stops at the first one found. A text that
 * stops being YAML answers for what came before the error; a root that is no
 * mapping has no keys.
 */
bool yaml_probe_top_key(const char *text, size_t len, const char *const *keys);

#endif
