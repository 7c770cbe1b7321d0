/*
 * Runtime credentials (see creds.h): which secret a request presents, and when
 * to fetch a new one. Precedence as config.h states and client-go applies:
 * token, else tokenFile, else exec, else basic auth; a client certificate is
 * presented alongside (the plugin's replaces the kubeconfig's).
 */
#include "k8s/auth/creds.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "k8s/base/base64.h"
#include "k8s/auth/secret.h"
#include "k8s/auth/execcred.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

#define TOKEN_FILE_MAX 65536 /* service account tokens are ~1 KB */

enum creds_kind { CREDS_NONE, CREDS_TOKEN, CREDS_TOKEN_FILE, CREDS_EXEC, CREDS_BASIC };

struct k8s_creds {
	int reread_ms;
	int exec_timeout_ms;

	pthread_mutex_t lock;        /* guards everything below */
	const struct k8s_config *cfg;  /* replaced by creds_replace() */
	enum creds_kind kind;
	uint64_t generation;         /* bumped whenever what we present changes */
	char *authorization;         /* current header value, or NULL */
	int64_t token_read_at;       /* CREDS_TOKEN_FILE: monotonic ms of the last read; 0: never */
	struct execcred_result exec; /* CREDS_EXEC: the cached plugin answer */
	bool exec_valid;
	unsigned exec_runs;
};

static char *bearer(const char *token)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_printf(&sb, "Bearer %s", token);
	return strbuf_take(&sb);
}

static void set_authorization(struct k8s_creds *c, char *value)
{
	if (c->authorization && value && strcmp(c->authorization, value) == 0) {
		k8s_secret_free(value, 0);
		return;
	}
	k8s_secret_free(c->authorization, 0);
	c->authorization = value;
	c->generation++;
}

int creds_new(const struct k8s_config *cfg, const struct k8s_creds_options *opts,
              struct k8s_creds **out, struct k8s_error *err)
{
	struct k8s_creds *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return k8s_error_set(err, ENOMEM, "out of memory");
	c->cfg = cfg;
	c->reread_ms = opts && opts->token_file_reread_ms > 0 ? opts->token_file_reread_ms
	                                                      : CREDS_TOKEN_FILE_REREAD_MS;
	c->exec_timeout_ms =
	    opts && opts->exec_timeout_ms > 0 ? opts->exec_timeout_ms : CREDS_EXEC_TIMEOUT_MS;
	c->generation = 1;
	pthread_mutex_init(&c->lock, NULL);
	if (cfg->token && *cfg->token) {
		c->kind = CREDS_TOKEN;
		c->authorization = bearer(cfg->token);
	} else if (cfg->token_file) {
		c->kind = CREDS_TOKEN_FILE;
	} else if (cfg->exec) {
		c->kind = CREDS_EXEC;
	} else if (cfg->username) {
		struct strbuf sb = STRBUF_INIT;
		char *b64;

		c->kind = CREDS_BASIC;
		strbuf_printf(&sb, "%s:%s", cfg->username, cfg->password ? cfg->password : "");
		b64 = strbuf_ok(&sb) ? k8s_base64_encode(sb.buf, sb.len) : NULL;
		if (sb.buf)
			explicit_bzero(sb.buf, sb.cap);
		strbuf_free(&sb);
		if (b64) {
			strbuf_printf(&sb, "Basic %s", b64);
			k8s_secret_free(b64, 0);
			c->authorization = strbuf_take(&sb);
		}
	}
	if ((c->kind == CREDS_TOKEN || c->kind == CREDS_BASIC) && !c->authorization) {
		creds_free(c);
		return k8s_error_set(err, ENOMEM, "out of memory");
	}
	*out = c;
	return 0;
}

void creds_free(struct k8s_creds *c)
{
	if (!c)
		return;
	k8s_secret_free(c->authorization, 0);
	execcred_result_clear(&c->exec);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Re-reads the token file when due. Keeps the last token when a re-read fails,
 * as client-go's cachingTokenSource does; fails only when there is none. */
static int refresh_token_file(struct k8s_creds *c, struct k8s_error *err)
{
	const char *path = c->cfg->token_file;
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n, start = 0, end;
	FILE *fp;
	int rc = 0;

	if (c->token_read_at && time_monotonic_ms() - c->token_read_at < c->reread_ms && c->authorization)
		return 0;
	fp = fopen(path, "r");
	if (!fp) {
		rc = k8s_error_set(err, EACCES, "cannot read token file %s: %s", path,
		                   strerror(errno));
		goto out;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len < TOKEN_FILE_MAX)
		strbuf_append(&sb, buf, n);
	fclose(fp);
	explicit_bzero(buf, sizeof(buf));
	if (!strbuf_ok(&sb)) {
		rc = k8s_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	end = sb.len;
	while (start < end && strchr(" \t\r\n", sb.buf[start]))
		start++;
	while (end > start && strchr(" \t\r\n", sb.buf[end - 1]))
		end--;
	if (end == start) {
		rc = k8s_error_set(err, EACCES, "token file %s is empty", path);
		goto out;
	}
	sb.buf[end] = '\0';
	set_authorization(c, bearer(sb.buf + start));
	if (!c->authorization)
		rc = k8s_error_set(err, ENOMEM, "out of memory");
	else
		c->token_read_at = time_monotonic_ms();
out:
	if (sb.buf)
		explicit_bzero(sb.buf, sb.cap);
	strbuf_free(&sb);
	if (rc && c->authorization) {
		/* an old token is better than none; the next 401 will say if it is not */
		c->token_read_at = time_monotonic_ms();
		k8s_error_clear(err);
		return 0;
	}
	return rc;
}

static bool exec_expired(const struct k8s_creds *c)
{
	return c->exec.expires != 0 && (int64_t)time(NULL) >= c->exec.expires;
}

static int refresh_exec(struct k8s_creds *c, int timeout_ms, struct k8s_error *err)
{
	struct execcred_result r;
	int rc;

	if (c->exec_valid && !exec_expired(c))
		return 0;
	c->exec_runs++;
	if (timeout_ms <= 0)
		timeout_ms = c->exec_timeout_ms;
	rc = execcred_run(c->cfg, timeout_ms, &r, err);
	if (rc)
		return rc;
	execcred_result_clear(&c->exec);
	c->exec = r;
	c->exec_valid = true;
	k8s_secret_free(c->authorization, 0);
	c->authorization = r.token ? bearer(r.token) : NULL;
	c->generation++;
	if (r.token && !c->authorization)
		return k8s_error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int copy_blob(const char *src, size_t len, char **dst, size_t *dlen)
{
	*dst = NULL;
	*dlen = 0;
	if (!src)
		return 0;
	*dst = malloc(len + 1);
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, len);
	(*dst)[len] = '\0';
	*dlen = len;
	return 0;
}

int creds_get(struct k8s_creds *c, int timeout_ms, struct creds_auth *out,
              struct k8s_error *err)
{
	const char *cert, *key;
	size_t cert_len, key_len;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&c->lock);
	cert = c->cfg->client_cert_pem;
	key = c->cfg->client_key_pem;
	cert_len = c->cfg->client_cert_pem_len;
	key_len = c->cfg->client_key_pem_len;
	if (c->kind == CREDS_TOKEN_FILE)
		rc = refresh_token_file(c, err);
	else if (c->kind == CREDS_EXEC)
		rc = refresh_exec(c, timeout_ms, err);
	if (rc)
		goto out;
	if (c->kind == CREDS_EXEC && c->exec.cert_pem) {
		cert = c->exec.cert_pem;
		cert_len = c->exec.cert_len;
		key = c->exec.key_pem;
		key_len = c->exec.key_len;
	}
	out->generation = c->generation;
	if ((c->authorization && !(out->authorization = strdup(c->authorization))) ||
	    copy_blob(cert, cert_len, &out->cert_pem, &out->cert_len) ||
	    copy_blob(key, key_len, &out->key_pem, &out->key_len))
		rc = k8s_error_set(err, ENOMEM, "out of memory");
out:
	pthread_mutex_unlock(&c->lock);
	if (rc)
		creds_auth_clear(out);
	return rc;
}

void creds_auth_clear(struct creds_auth *a)
{
	if (!a)
		return;
	k8s_secret_free(a->authorization, 0);
	free(a->cert_pem);
	k8s_secret_free(a->key_pem, a->key_len);
	memset(a, 0, sizeof(*a));
}

int creds_replace(struct k8s_creds *c, const struct k8s_config *cfg, struct k8s_error *err)
{
	struct k8s_creds_options o = {c->reread_ms, c->exec_timeout_ms};
	struct k8s_creds *fresh;
	char *old;
	int rc = creds_new(cfg, &o, &fresh, err);

	if (rc)
		return rc;
	pthread_mutex_lock(&c->lock);
	c->cfg = cfg;
	c->kind = fresh->kind;
	old = c->authorization;
	c->authorization = fresh->authorization;
	fresh->authorization = NULL;
	c->token_read_at = 0;
	execcred_result_clear(&c->exec);
	c->exec_valid = false;
	c->generation++;             /* a 401 to the old ones must not drop the new */
	pthread_mutex_unlock(&c->lock);
	k8s_secret_free(old, 0);
	creds_free(fresh);
	return 0;
}

bool creds_invalidate(struct k8s_creds *c, uint64_t gen)
{
	bool retry = false;

	pthread_mutex_lock(&c->lock);
	switch (c->kind) {
	case CREDS_EXEC:
		/* client-go re-runs the plugin after a 401 unless another request already did */
		if (gen == c->generation)
			c->exec_valid = false;
		retry = true;
		break;
	case CREDS_TOKEN_FILE:
		if (gen == c->generation)
			c->token_read_at = 0; /* re-read now: the kubelet may have rotated it */
		retry = true;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&c->lock);
	return retry;
}

unsigned creds_exec_runs(struct k8s_creds *c)
{
	unsigned n;

	pthread_mutex_lock(&c->lock);
	n = c->exec_runs;
	pthread_mutex_unlock(&c->lock);
	return n;
}
