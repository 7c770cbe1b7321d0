/*
 * places: prints fs/'s table of the tree's places (fs/base/places.c), one place a
 * line, for the integration tests that must know which files a directory holds
 * (tests/integration/test_tree_listing.py): they take the tree's shape from the
 * table instead of writing it again, so that a new row needs no edit there.
 *
 *   places     PATH<TAB>FLAGS, one place a line, by type (enum fs_type)
 *
 * PATH as the README writes it (jobs/NAME/status, jobs/NAME/instances/POD/); FLAGS
 * a comma-separated list of dir, log, optional (comes and goes), or "-". Places
 * with no path of their own (submit/'s and code/'s user-named entries) are left out.
 */
#include <stdio.h>
#include <string.h>

#include "fs/base/places.h"

int main(void)
{
	char path[256], flags[32];

	for (int t = FS_ROOT + 1; t < FS_TYPE_COUNT; t++) {
		for (int parent = FS_ROOT; parent < FS_TYPE_COUNT; parent++) {
			const struct place *const *c;
			size_t n = place_children((enum fs_type)parent, &c);
			const struct place *obj = place_object_child((enum fs_type)parent);

			for (size_t i = 0; i <= n; i++) {
				const struct place *p = i < n ? c[i] : obj;

				if (!p || p->type != (enum fs_type)t || (p->flags & PLACE_SUBMIT &&
									 p->type != FS_SUBMIT_DIR))
					continue;
				if (p->type == FS_CODE_SUBDIR && p->parent == FS_CODE_SUBDIR)
					continue;   /* the same directory, one level down */
				place_path(p, path, sizeof(path));
				flags[0] = '\0';
				if (p->flags & PLACE_DIR)
					strcat(flags, ",dir");
				if (p->flags & PLACE_LOG)
					strcat(flags, ",log");
				if (p->flags & PLACE_COMES_AND_GOES)
					strcat(flags, ",optional");
				printf("%s\t%s\n", path, flags[0] ? flags + 1 : "-");
			}
		}
	}
	return ferror(stdout) ? 1 : 0;
}
