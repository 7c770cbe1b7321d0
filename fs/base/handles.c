/*
 * Open files' handles (handles.h): made at open by ops.c and submit.c, listed in
 * struct fs so that fs_free frees what the kernel never released (a daemon
 * stopped with `tail -f` running). Lock: fs->handles_lock, a leaf.
 */
#include "fs/base/handles.h"

#include <pthread.h>
#include <stdlib.h>

struct fs_handle *fs_handle_new(struct fs *fs, struct fs_inode *in)
{
	struct fs_handle *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->in = in;
	pthread_mutex_lock(&fs->handles_lock);
	h->next = fs->handles;
	if (h->next)
		h->next->prev = h;
	fs->handles = h;
	pthread_mutex_unlock(&fs->handles_lock);
	return h;
}

void fs_handle_free(struct fs *fs, struct fs_handle *h)
{
	pthread_mutex_lock(&fs->handles_lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		fs->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&fs->handles_lock);
	fs_text_put(h->text);
	free(h);
}
