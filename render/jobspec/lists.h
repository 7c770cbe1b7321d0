/*
 * render/jobspec/lists.c's functions the spec compiler's other files call. Pure: no I/O.
 */
#ifndef ARENAFS_RENDER_SPEC_LISTS_H
#define ARENAFS_RENDER_SPEC_LISTS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "render/jobspec/spec_internal.h"

int spec_key_tolerations(struct spec_ctx *c, const char *key, const json_t *v,
                         const struct yaml_node_info *at);

int spec_key_pull_secrets(struct spec_ctx *c, const char *key, const json_t *v,
                          const struct yaml_node_info *at);

int spec_key_sync(struct spec_ctx *c, const char *key, const json_t *v,
                  const struct yaml_node_info *at);

/* command: [python, main.py] → "python main.py", each word shell-quoted as needed. */
int spec_command_list(struct spec_ctx *c, const char *key, const json_t *v, char **out);

#endif
