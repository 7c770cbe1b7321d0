/*
 * The staging tree of each namespace's submit/ (areas.c). Used by submit.c and
 * submit_defer.c; made and freed by fs.c.
 */
#ifndef ARENAFS_FS_SUBMIT_AREAS_H
#define ARENAFS_FS_SUBMIT_AREAS_H

#include <stdbool.h>
#include "fs/submit/staging.h"

struct submit_areas;

int areas_new(struct submit_areas **out);
void areas_free(struct submit_areas *a);
/*
 * The staging tree of namespace ns' submit/ (submit/ itself for the mount's
 * namespace, else namespaces/NS/submit/). NULL when it has none yet and !create,
 * or on ENOMEM. A tree lives until the unmount: the kernel's inodes name its nodes.
 */
struct staging *areas_get(struct submit_areas *a, const char *ns, bool create);

#endif
