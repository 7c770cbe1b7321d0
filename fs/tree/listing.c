/*
 * When a listing last changed (listing.h): the mtimes of jobs/ (per namespace),
 * nodes/ and namespaces/. The notifier touches them as the cache changes;
 * content.c gives them as the directories' st_mtime. Lock: fs->listing_lock, a leaf.
 */
#include "fs/tree/listing.h"

#include <assert.h>
#include <pthread.h>
#include <string.h>

int64_t fs_listing_mtime(struct fs *fs, enum fs_type type, const char *ns)
{
	int64_t t = fs->started;

	pthread_mutex_lock(&fs->listing_lock);
	if (type == FS_NODES_DIR)
		t = fs->nodes_mtime;
	else if (type == FS_NAMESPACES_DIR)
		t = fs->namespaces_mtime;
	else if (type == FS_JOBS_DIR)
		for (size_t i = 0; i < fs->n_jobs_mtime; i++)
			if (!ns ? fs->jobs_mtime[i].mtime > t : strcmp(fs->jobs_mtime[i].ns, ns) == 0)
				t = fs->jobs_mtime[i].mtime;
	pthread_mutex_unlock(&fs->listing_lock);
	return t;
}

void fs_listing_touch(struct fs *fs, enum fs_type type, const char *ns, int64_t when)
{
	size_t i;

	pthread_mutex_lock(&fs->listing_lock);
	if (type == FS_NODES_DIR) {
		fs->nodes_mtime = when;
	} else if (type == FS_NAMESPACES_DIR) {
		fs->namespaces_mtime = when;
	} else if (type == FS_JOBS_DIR && ns && strlen(ns) < sizeof(fs->jobs_mtime[0].ns)) {
		for (i = 0; i < fs->n_jobs_mtime; i++)
			if (strcmp(fs->jobs_mtime[i].ns, ns) == 0)
				break;
		if (i == fs->n_jobs_mtime && i < FS_LISTING_NS_MAX) {
			strcpy(fs->jobs_mtime[i].ns, ns);
			fs->n_jobs_mtime++;
			/* a new namespace with jobs shows up in namespaces/ too */
			fs->namespaces_mtime = when;
		}
		if (i < fs->n_jobs_mtime)
			fs->jobs_mtime[i].mtime = when;
	}
	assert(fs->n_jobs_mtime <= FS_LISTING_NS_MAX);
	pthread_mutex_unlock(&fs->listing_lock);
}
