/*
 * RFC 3339 timestamps as the Kubernetes API writes them ("2026-12-02T10:14:29Z",
 * fractions and offsets accepted on input), converted to and from Unix seconds.
 * Pure functions; used by k8s/ when decoding objects and by render/ when printing.
 * Also the one monotonic clock reading the deadlines and waits of k8s/ and fs/ use.
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_TIMEFMT_H
#define ARENAFS_K8S_BASE_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Unix seconds of an RFC 3339 time; 0 for NULL, "" or text that is not one. */
int64_t time_parse_rfc3339(const char *s);
/* Writes "YYYY-MM-DDTHH:MM:SSZ" (UTC) into buf (at least 21 bytes); returns buf. */
char *time_format_rfc3339(int64_t t, char *buf, size_t size);
/* Writes "YYYY-MM-DD HH:MM:SS" in UTC, the form arena get prints; returns buf. */
char *time_format_human(int64_t t, char *buf, size_t size);
/* Milliseconds of CLOCK_MONOTONIC: for deadlines and durations, never for display. */
int64_t time_monotonic_ms(void);
/* The wall clock in seconds since the epoch: the `now` handed to render/. */
int64_t time_now(void);
/* The CLOCK_REALTIME moment ms milliseconds from now: the deadline of a
 * pthread_cond_timedwait on a condition variable of the default clock. */
struct timespec time_realtime_after_ms(int64_t ms);
/* Sleeps ms milliseconds, all of them even when a signal interrupts. */
void time_sleep_ms(int64_t ms);

#endif
