/*
 * jobs/NAME/why (why.c): the one reason a job is where it is, in one line, from what
 * the cluster already says; it also heads jobs/NAME/info. Pure: `now` comes in the
 * view. Callers: fs/ (the places table's row), render/job_info.c. Test:
 * tests/unit/test_render_why.c.
 */
#ifndef ARENAFS_RENDER_WHY_H
#define ARENAFS_RENDER_WHY_H

#include <stdbool.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"
#include "render/render.h"

/* The line; a failed job's is followed by the end of its log, when v->failed_log_tail
 * has it. */
void render_job_why(struct strbuf *sb, const struct job_view *v);
/* The container instance a failed job's why names: the first to fail, in the pod's
 * current instance (*previous false) or the one before a restart (true). */
bool render_job_why_failure(const struct job_view *v, const struct pod **pod,
                            const struct container **c, bool *previous);

#endif
