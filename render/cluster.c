/*
 * cluster/context and cluster/health.
 *
 * context names where the mount points — server URL, context, cluster,
 * namespace, user, how it authenticates, which kubeconfig — and never a secret:
 * no token, key, certificate, password or exec argument (arguments may carry
 * tokens), and a server URL loses any user:password@ it was written with.
 *
 * health is "ok", or "disconnected since <RFC 3339 UTC time>: <reason>" on one
 * line (the reason is made single-line: it may be an API server's message); the
 * line on kept logs (render_logs_kept_line) follows it when they are not kept as
 * keep_logs asked (a disk that holds less, a write that failed: issue 23).
 *
 * Pure. Tested by tests/unit/test_render_cluster.c.
 */
#include "render/cluster.h"
#include "render/table.h"
#include "render/text.h"

#include <string.h>
#include <strings.h>

#include "k8s/base/timefmt.h"

/* The longest reason health shows; the whole error is in the daemon's log. */
#define HEALTH_REASON_MAX 512

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* The server URL without userinfo ("https://u:p@host" → "https://host"). */
static void put_server(struct strbuf *sb, const char *url)
{
	const char *host = strstr(url, "://");
	const char *at, *slash;

	host = host ? host + 3 : url;
	slash = strchr(host, '/');
	at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	strbuf_append(sb, url, (size_t)(host - url));
	strbuf_puts(sb, at ? at + 1 : host);
}

/* The kind of credential, never its value (order as k8s/auth/creds.c uses them). */
static const char *auth_kind(const struct k8s_config *cfg)
{
	if (cfg->token)
		return cfg->client_cert_pem ? "client certificate, bearer token" : "bearer token";
	if (cfg->token_file)
		return cfg->client_cert_pem ? "client certificate, token file" : "token file";
	if (cfg->exec)
		return cfg->client_cert_pem ? "client certificate, exec plugin" : "exec plugin";
	if (cfg->username)
		return "basic";
	if (cfg->client_cert_pem)
		return "client certificate";
	return "none";
}

/* What TLSVerify says: over plain HTTP there is no TLS to verify, and "true"
 * would tell a user their traffic is checked when it is not even encrypted. */
static const char *tls_verify(const struct k8s_config *cfg)
{
	if (cfg->server && strncasecmp(cfg->server, "http://", 7) == 0)
		return "no TLS (http)";
	return cfg->insecure_skip_tls_verify ? "false" : "true";
}

void render_cluster_context(struct strbuf *sb, const struct k8s_config *cfg)
{
	struct strbuf server = STRBUF_INIT, auth = STRBUF_INIT;
	struct render_table t;

	put_server(&server, str_or_empty(cfg->server));
	strbuf_puts(&auth, auth_kind(cfg));
	if (cfg->exec && cfg->exec->command)
		strbuf_printf(&auth, " (%s)", cfg->exec->command);
	render_table_init(&t, 2);
	render_table_add(&t, (const char *[]){"Server:", strbuf_str(&server)});
	render_table_add(&t, (const char *[]){"Context:", str_or_empty(cfg->context)});
	render_table_add(&t, (const char *[]){"Cluster:", str_or_empty(cfg->cluster)});
	render_table_add(&t, (const char *[]){"Namespace:", str_or_empty(cfg->namespace)});
	render_table_add(&t, (const char *[]){"User:", str_or_empty(cfg->user)});
	render_table_add(&t, (const char *[]){"Auth:", strbuf_str(&auth)});
	render_table_add(&t, (const char *[]){"TLSVerify:", tls_verify(cfg)});
	render_table_add(&t, (const char *[]){"Kubeconfig:", str_or_empty(cfg->source)});
	if (!strbuf_ok(&server) || !strbuf_ok(&auth))
		sb->oom = true;
	render_table_render(sb, &t, "");
	render_table_free(&t);
	strbuf_free(&server);
	strbuf_free(&auth);
}

/* One line of a fixed array of cache_health, which need not hold its NUL (a long
 * reason fills it), or fallback when it is empty. */
static void put_field(struct strbuf *sb, const char *field, size_t size, const char *fallback)
{
	char copy[sizeof(((struct cache_health *)0)->last_error) + 1];

	if (size >= sizeof(copy))
		size = sizeof(copy) - 1;
	memcpy(copy, field, size);
	copy[size] = '\0';
	render_put_oneline(sb, copy[0] ? copy : fallback, HEALTH_REASON_MAX);
}

void render_stale_note(struct strbuf *sb, const struct cache_health *h)
{
	char when[32];

	if (h->connected)
		return;
	strbuf_puts(sb, "\nCluster: unreachable");
	if (h->since > 0)
		strbuf_printf(sb, " since %s; this is the state last seen then",
		              time_format_rfc3339(h->since, when, sizeof(when)));
	strbuf_puts(sb, " (");
	put_field(sb, h->last_error, sizeof(h->last_error), "unknown reason");
	strbuf_puts(sb, ")\n");
}

void render_logs_kept_line(struct strbuf *sb, const struct logs_kept_state *s)
{
	char when[32];
	bool shrunk = s->budget < s->asked;

	if (!s->err && !shrunk)
		return;
	if (s->err) {
		strbuf_puts(sb, "logs: not being kept");
		if (s->since > 0)
			strbuf_printf(sb, " since %s",
			              time_format_rfc3339(s->since, when, sizeof(when)));
		strbuf_printf(sb, ": the log of %s could not be written to %s: %s", s->log, s->dir,
		              strerror(s->err));
	} else {
		strbuf_printf(sb, "logs: kept in %s", s->dir);
	}
	if (shrunk) {
		strbuf_puts(sb, "; at most ");
		render_put_size(sb, s->budget);
		strbuf_puts(sb, ", what the disk holds, not keep_logs=");
		render_put_size(sb, s->asked);
	}
	strbuf_putc(sb, '\n');
}

/* The second line, only when the server sent objects the cache left out (names no
 * file can have, another kind than the watched one, no valid resourceVersion). */
static void skipped_line(struct strbuf *sb, const struct cache_health *h)
{
	if (!h->skipped)
		return;
	strbuf_printf(sb, "not shown: %llu objects unfit for the tree (the last: ",
	              (unsigned long long)h->skipped);
	put_field(sb, h->skipped_last, sizeof(h->skipped_last), "");
	strbuf_puts(sb, ")\n");
}

void render_cluster_health(struct strbuf *sb, const struct cache_health *h)
{
	char when[32];

	if (h->connected) {
		strbuf_puts(sb, "ok\n");
		skipped_line(sb, h);
		return;
	}
	strbuf_puts(sb, "disconnected");
	if (h->since > 0)
		strbuf_printf(sb, " since %s", time_format_rfc3339(h->since, when, sizeof(when)));
	strbuf_puts(sb, ": ");
	put_field(sb, h->last_error, sizeof(h->last_error), "unknown reason");
	strbuf_putc(sb, '\n');
	skipped_line(sb, h);
}
