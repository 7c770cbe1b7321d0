/*
 * The mount watcher (watch.h): one thread reading /proc/self/mountinfo every
 * WATCH_PERIOD_MS for the mount ID arenafs' mount had when it was made.
 *
 * Started by mount/main.c after the mount exists, stopped before unmounting.
 */
#include "mount/watch.h"

#include "k8s/base/worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WATCH_PERIOD_MS 1000
#define MOUNTINFO "/proc/self/mountinfo"

struct mount_watch {
	long id;                     /* mountinfo's first field */
	struct worker w;
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * The ID of the newest FUSE mount at mountpoint (when id_wanted < 0), or whether the
 * mount with id_wanted is still there (returns it, else -1).
 */
static long scan(const char *mountpoint, long id_wanted)
{
	FILE *f = fopen(MOUNTINFO, "re");
	char *line = NULL;
	size_t cap = 0;
	long found = -1;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *field[5] = {NULL};
		char *sep = strstr(line, " - ");
		char *p = line;
		long id;

		if (!sep)
			continue;
		for (int i = 0; i < 5; i++, p = NULL)
			if (!(field[i] = strtok_r(p, " ", &save)))
				break;
		if (!field[4])
			continue;
		id = strtol(field[0], NULL, 10);
		if (id_wanted >= 0) {
			if (id == id_wanted) {
				found = id;
				break;
			}
			continue;
		}
		unescape(field[4]);
		if (strcmp(field[4], mountpoint) == 0 && strncmp(sep + 3, "fuse", 4) == 0 && id > found)
			found = id;
	}
	free(line);
	fclose(f);
	return found;
}

bool watch_fuse_mounted_at(const char *mountpoint)
{
	return scan(mountpoint, -1) >= 0;
}

static void *watch_main(void *arg)
{
	struct mount_watch *w = arg;

	pthread_mutex_lock(&w->w.mu);
	while (!w->w.stop) {
		worker_sleep(&w->w, WATCH_PERIOD_MS);
		if (w->w.stop)
			break;
		pthread_mutex_unlock(&w->w.mu);
		if (scan(NULL, w->id) < 0) {
			/* detached under us: stop the way a signal stops us */
			kill(getpid(), SIGTERM);
			pthread_mutex_lock(&w->w.mu);
			break;
		}
		pthread_mutex_lock(&w->w.mu);
	}
	pthread_mutex_unlock(&w->w.mu);
	return NULL;
}

int watch_start(const char *mountpoint, struct mount_watch **out)
{
	struct mount_watch *w;
	long id = scan(mountpoint, -1);
	int ret;

	*out = NULL;
	if (id < 0)
		return -ENOENT;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->id = id;
	worker_init(&w->w);
	ret = worker_start(&w->w, watch_main, w);
	if (ret) {
		worker_destroy(&w->w);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

bool watch_mounted(struct mount_watch *w)
{
	return !w || scan(NULL, w->id) >= 0;
}

void watch_stop(struct mount_watch *w)
{
	if (!w)
		return;
	worker_stop(&w->w);
	worker_destroy(&w->w);
	free(w);
}
