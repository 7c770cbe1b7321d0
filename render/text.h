/*
 * render/text.c's face: safe one-line text, Arena's short durations, times, labels,
 * URL hosts (text.c).
 * Pure: no I/O, no locks, no clock.
 */
#ifndef ARENAFS_RENDER_TEXT_H
#define ARENAFS_RENDER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "k8s/base/strbuf.h"
#include "k8s/objects/objects.h"

/* Arena's word for a value it does not have (priority, node of a pending pod). */
#define RENDER_NA "N/A"

/* Appends s with every control character (newline, tab, ESC...) as a space, bytes that
 * are not UTF-8 as U+FFFD (k8s/base/textsafe.h), and at most max bytes of s (0: no
 * limit; longer text ends in "..."), for single-line values. */
void render_put_oneline(struct strbuf *sb, const char *s, size_t max);

/* Arena's util.ShortHumanDuration: "0s", "59s", "12m", "5h", "3d", "2y", "<invalid>". */
char *render_short_duration(int64_t seconds, char *buf, size_t size);

/* "1.8 MiB", "512 KiB", "300 bytes": the sizes keep_logs takes. */
void render_put_size(struct strbuf *sb, uint64_t n);

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

#endif
