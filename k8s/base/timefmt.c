/*
 * RFC 3339 <-> Unix seconds (see timefmt.h). Done by hand with timegm so that the
 * process time zone never leaks into what the tree shows.
 */
#include "k8s/base/timefmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_digits(const char *s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int64_t time_parse_rfc3339(const char *s)
{
	struct tm tm = {0};
	int year, mon, day, hour, min, sec;
	int64_t t;
	const char *p;

	if (!s || strlen(s) < 19)
		return 0;
	if (parse_digits(s, 4, &year) || s[4] != '-' || parse_digits(s + 5, 2, &mon) ||
	    s[7] != '-' || parse_digits(s + 8, 2, &day) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    parse_digits(s + 11, 2, &hour) || s[13] != ':' || parse_digits(s + 14, 2, &min) ||
	    s[16] != ':' || parse_digits(s + 17, 2, &sec))
		return 0;
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	t = (int64_t)timegm(&tm);

	p = s + 19;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == '+' || *p == '-') {
		int oh, om;

		if (parse_digits(p + 1, 2, &oh) || p[3] != ':' || parse_digits(p + 4, 2, &om))
			return 0;
		/* "+02:00" means local time is ahead of UTC: subtract to get UTC. */
		t += (*p == '+' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
	}
	return t;
}

/* t in UTC by strftime's fmt; "" when it does not fit. */
static char *format_utc(int64_t t, const char *fmt, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, size, fmt, &tm))
		snprintf(buf, size, "%s", "");
	return buf;
}

char *time_format_rfc3339(int64_t t, char *buf, size_t size)
{
	return format_utc(t, "%Y-%m-%dT%H:%M:%SZ", buf, size);
}

char *time_format_human(int64_t t, char *buf, size_t size)
{
	return format_utc(t, "%Y-%m-%d %H:%M:%S", buf, size);
}

int64_t time_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec time_realtime_after_ms(int64_t ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

void time_sleep_ms(int64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int64_t time_now(void)
{
	return (int64_t)time(NULL);
}
