/*
 * Small text helpers the render/ files share (text.h): single-line
 * safe text, Arena's short durations and time format, label lookup, URL hosts.
 * Pure; no clock (durations are computed by the callers from v->now).
 */
#include "render/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/base/textsafe.h"
#include "k8s/base/timefmt.h"

void render_put_oneline(struct strbuf *sb, const char *s, size_t max)
{
	size_t len = strlen(s), n = len;
	bool cut = false;

	if (max && len > max) {
		n = textsafe_cut(s, len, max > 3 ? max - 3 : 0);
		cut = true;
	}
	textsafe_line(sb, s, n);
	if (cut)
		strbuf_puts(sb, "...");
}

char *render_short_duration(int64_t seconds, char *buf, size_t size)
{
	/* Arena tolerates a clock skew of one second before calling it invalid. */
	if (seconds < -1)
		snprintf(buf, size, "<invalid>");
	else if (seconds < 0)
		snprintf(buf, size, "0s");
	else if (seconds < 60)
		snprintf(buf, size, "%llds", (long long)seconds);
	else if (seconds < 3600)
		snprintf(buf, size, "%lldm", (long long)(seconds / 60));
	else if (seconds < 24 * 3600)
		snprintf(buf, size, "%lldh", (long long)(seconds / 3600));
	else if (seconds < 365LL * 24 * 3600)
		snprintf(buf, size, "%lldd", (long long)(seconds / (24 * 3600)));
	else
		snprintf(buf, size, "%lldy", (long long)(seconds / (365LL * 24 * 3600)));
	return buf;
}

char *render_time_or_na(int64_t t, char *buf, size_t size)
{
	if (t <= 0) {
		snprintf(buf, size, "%s", RENDER_NA);
		return buf;
	}
	return time_format_human(t, buf, size);
}

const char *render_kv(const struct kv_list *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].key && strcmp(l->items[i].key, key) == 0)
			return l->items[i].value ? l->items[i].value : "";
	return NULL;
}

void render_put_url_host(struct strbuf *sb, const char *host)
{
	if (strchr(host, ':') && host[0] != '[')
		strbuf_printf(sb, "[%s]", host);
	else
		strbuf_puts(sb, host);
}

char *render_lower(const char *s, char *buf, size_t size)
{
	size_t i = 0;

	if (!size)
		return buf;
	for (; s[i] && i + 1 < size; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
	return buf;
}

int render_real_digits(double d)
{
	char buf[40];

	/* The fewest significant digits that read back as the same double: what Go's
	 * encoders (and so kubectl) print, where %.17g would show 0.1 as
	 * 0.10000000000000001. */
	for (int p = 1; p < 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, d);
		if (strtod(buf, NULL) == d)
			return p;
	}
	return 17;
}

void render_put_size(struct strbuf *sb, uint64_t n)
{
	if (n >= (1ull << 20))
		strbuf_printf(sb, "%.1f MiB", (double)n / (1ull << 20));
	else if (n >= (1ull << 10))
		strbuf_printf(sb, "%llu KiB", (unsigned long long)(n >> 10));
	else
		strbuf_printf(sb, "%llu bytes", (unsigned long long)n);
}
