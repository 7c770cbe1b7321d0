/*
 * What the render/ files of the tree share and nobody else sees: the aligned
 * table Arena prints through Go's text/tabwriter, one-line safe text, Arena's
 * short durations, label lookup and the GPU sums several files show.
 *
 *   table.c        render_table_*: columns padded by two spaces, the last one not
 *   text.c         safe single-line text, durations, times, labels, URL hosts
 *   status.c       job and pod status words (the one mapping every file uses)
 *   job_info.c     jobs/NAME/info (arena get)
 *   why.c          jobs/NAME/why: the one reason the job is where it is
 *   job_tables.c   cluster/list, list-all, top-job (arena list, list -A, top job)
 *   events.c       jobs/NAME/events
 *   gpus.c         GPU accounting, job/node gpus, node info, cluster top and gpus
 *   tensorboard.c  jobs/NAME/tensorboard_url
 *   yaml_emit.c    JSON → YAML for spec.yaml (render/yaml_emit.h)
 *   job_files.c    type, job.json, spec.yaml, the job's mtime
 *   pods.c         instance files, the main pod and the main container
 *   nodes.c        node status, ip, role
 *   cluster.c      cluster/context, cluster/health
 *   readme.c       README
 *
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_RENDER_INTERNAL_H
#define ARENAFS_RENDER_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/objects/objects.h"
#include "render/render.h"
#include "k8s/base/strbuf.h"

/* Arena's word for a value it does not have (priority, node of a pending pod). */
#define RENDER_NA "N/A"
/* Go's tabwriter as Arena configures it: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0). */
#define RENDER_TABLE_PADDING 2
/* The longest a cell may be: a message of many kB must not make a table unreadable,
 * and the whole text stays bounded. Longer cells end in "...". */
#define RENDER_CELL_MAX 4096

/*
 * A table laid out like Go's text/tabwriter: each column as wide as its widest
 * cell (counted in UTF-8 characters) plus RENDER_TABLE_PADDING spaces, the last
 * column not padded, and no trailing blanks. Cells are made single-line when
 * added (control characters become spaces), so a hostile message cannot break the
 * layout. Allocation failure is remembered and passed to the strbuf at render.
 */
struct render_table {
	size_t ncols;
	size_t nrows;
	size_t cap;   /* rows allocated */
	char **cells; /* nrows * ncols, owned */
	bool oom;
};

void render_table_init(struct render_table *t, size_t ncols);
/* Adds a row of t->ncols cells; NULL cells are empty. */
void render_table_add(struct render_table *t, const char *const *cells);
/* Adds a row of Arena's dashes under each header cell ("NAME" → "----"). */
void render_table_add_rule(struct render_table *t);
/* Appends the table, each line starting with indent. */
void render_table_render(struct strbuf *sb, const struct render_table *t, const char *indent);
void render_table_free(struct render_table *t);

/* Appends s with every control character (newline, tab, ESC...) as a space and at most
 * max bytes (0: no limit; longer text ends in "..."), for single-line values. */
void render_put_oneline(struct strbuf *sb, const char *s, size_t max);
/* Arena's util.ShortHumanDuration: "0s", "59s", "12m", "5h", "3d", "2y", "<invalid>". */
char *render_short_duration(int64_t seconds, char *buf, size_t size);
/* "2026-12-02 10:14:29" (UTC), or RENDER_NA for 0. */
char *render_time_or_na(int64_t t, char *buf, size_t size);
/* The value of key in l, or NULL (kv_get without depending on objects_decode.c). */
const char *render_kv(const struct kv_list *l, const char *key);
/* Appends host for a URL: IPv6 literals in brackets. */
void render_put_url_host(struct strbuf *sb, const char *host);
/* The fewest significant digits (1..17) with which "%.*g" reads back as d. */
int render_real_digits(double d);
/* Lower-cases ASCII s into buf. */
char *render_lower(const char *s, char *buf, size_t size);

/* "Ready", "NotReady", with ",SchedulingDisabled" when cordoned (nodes.c). */
const char *render_node_status_word(const struct node *node);

/* ---- GPU accounting (gpus.c), shared by info and the gpus files ---- */

/* Arena's IsCompletedPod: Succeeded, Failed or being deleted. */
bool render_pod_is_completed(const struct pod *pod);

/* ---- job facts (job_info.c) ---- */

/* When the job's clock starts for Duration: status.startTime, else (MPI, TrainJob,
 * which Arena times from creation) the creation time; 0 when unknown. */
int64_t render_job_start(const struct job_view *v);
/* When the job ended, or 0 while it runs. */
int64_t render_job_end(const struct job_view *v);
/* Arena's Duration: from render_job_start to the end, or to v->now; 0 before the start. */
int64_t render_job_duration(const struct job_view *v);

#endif
