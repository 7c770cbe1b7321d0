/*
 * Following a rewritten kubeconfig (kcreload.h): one thread stats the files the
 * kubeconfig was read from every KC_POLL_MS; when one changed, it loads the
 * kubeconfig again with the same options, as kubectl's next run would, and
 *
 * - when it names the same server (URL, CA, TLS settings) with other
 *   credentials, hands them to the client: watches that failed with 401 come
 *   back at their next probe, without a remount;
 * - when it names another server, says so once: following it would mean a new
 *   cache, which is what a remount is.
 *
 * A file caught half-written fails to load; the next change loads it again.
 */
#include "mount/kcreload.h"

#include "k8s/base/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>

#include "k8s/base/say.h"

#define KC_POLL_MS 2000
#define KC_FILES_MAX 16

struct kc_reload {
	struct k8s_client *client;
	struct k8s_config_options opts;
	char *kubeconfig, *context, *namespace;   /* copies behind opts */
	const struct k8s_config *current;
	struct k8s_config **loaded;               /* every reload in use or used: freed last */
	size_t n_loaded;
	char *paths[KC_FILES_MAX];
	size_t n_paths;
	struct timespec seen[KC_FILES_MAX];
	off_t sizes[KC_FILES_MAX];
	struct worker w;
	bool told_other_server;
};

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_blob(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || (a && b && memcmp(a, b, alen) == 0));
}

static bool same_server(const struct k8s_config *a, const struct k8s_config *b)
{
	return same_str(a->server, b->server) && same_str(a->tls_server_name, b->tls_server_name) &&
	       same_str(a->proxy_url, b->proxy_url) &&
	       a->insecure_skip_tls_verify == b->insecure_skip_tls_verify &&
	       same_blob(a->ca_pem, a->ca_pem_len, b->ca_pem, b->ca_pem_len);
}

static bool same_exec(const struct k8s_exec_config *a, const struct k8s_exec_config *b)
{
	if (!a || !b)
		return a == b;
	if (!same_str(a->command, b->command) || a->n_args != b->n_args || a->n_env != b->n_env)
		return false;
	for (size_t i = 0; i < a->n_args; i++)
		if (!same_str(a->args[i], b->args[i]))
			return false;
	for (size_t i = 0; i < a->n_env; i++)
		if (!same_str(a->env[i].name, b->env[i].name) ||
		    !same_str(a->env[i].value, b->env[i].value))
			return false;
	return true;
}

static bool same_credentials(const struct k8s_config *a, const struct k8s_config *b)
{
	return same_str(a->token, b->token) && same_str(a->token_file, b->token_file) &&
	       same_str(a->username, b->username) && same_str(a->password, b->password) &&
	       same_blob(a->client_cert_pem, a->client_cert_pem_len, b->client_cert_pem,
	                 b->client_cert_pem_len) &&
	       same_blob(a->client_key_pem, a->client_key_pem_len, b->client_key_pem,
	                 b->client_key_pem_len) &&
	       same_exec(a->exec, b->exec);
}

/* Did any file change since the last look? Records what it sees. */
static bool files_changed(struct kc_reload *r)
{
	bool changed = false;

	for (size_t i = 0; i < r->n_paths; i++) {
		struct stat st;
		struct timespec t = {0, 0};
		off_t size = -1;

		if (stat(r->paths[i], &st) == 0) {
			t = st.st_mtim;
			size = st.st_size;
		}
		if (t.tv_sec != r->seen[i].tv_sec || t.tv_nsec != r->seen[i].tv_nsec ||
		    size != r->sizes[i])
			changed = true;
		r->seen[i] = t;
		r->sizes[i] = size;
	}
	return changed;
}

static void reload(struct kc_reload *r)
{
	struct k8s_config *cfg = NULL, **grown;
	struct k8s_error err;

	k8s_error_clear(&err);
	if (kubeconfig_load(&r->opts, &cfg, &err) < 0) {
		say(LOG_WARNING, "the kubeconfig changed but cannot be read: %s", err.message);
		return;
	}
	if (!same_server(r->current, cfg)) {
		if (!r->told_other_server)
			say(LOG_WARNING, "the kubeconfig now names another server or CA (%s): "
			    "remount to follow it; still serving %s", cfg->server,
			    r->current->server);
		r->told_other_server = true;
		kubeconfig_free(cfg);
		return;
	}
	if (same_credentials(r->current, cfg)) {
		kubeconfig_free(cfg);
		return;
	}
	grown = realloc(r->loaded, (r->n_loaded + 1) * sizeof(*grown));
	if (!grown || k8s_client_replace_credentials(r->client, cfg, &err) < 0) {
		say(LOG_WARNING, "the kubeconfig changed: cannot use its credentials: %s",
		    grown ? err.message : "out of memory");
		if (grown)
			r->loaded = grown;
		kubeconfig_free(cfg);
		return;
	}
	r->loaded = grown;
	r->loaded[r->n_loaded++] = cfg;   /* the client's creds point into it */
	r->current = cfg;
	say(LOG_NOTICE, "the kubeconfig changed: presenting its new credentials to %s",
	    cfg->server);
}

static void *reload_main(void *arg)
{
	struct kc_reload *r = arg;

	pthread_mutex_lock(&r->w.mu);
	while (!r->w.stop) {
		worker_sleep(&r->w, KC_POLL_MS);
		if (r->w.stop)
			break;
		pthread_mutex_unlock(&r->w.mu);
		if (files_changed(r))
			reload(r);
		pthread_mutex_lock(&r->w.mu);
	}
	pthread_mutex_unlock(&r->w.mu);
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int kc_reload_start(struct k8s_client *client, const struct k8s_config_options *opts,
                    const struct k8s_config *cfg, struct kc_reload **out)
{
	struct kc_reload *r;
	char *src, *save = NULL, *p;

	*out = NULL;
	if (strcmp(cfg->source, "in-cluster") == 0)
		return 0;               /* the service account's files: creds re-reads the token */
	r = calloc(1, sizeof(*r));
	src = strdup(cfg->source);
	if (!r || !src)
		goto nomem;
	r->client = client;
	r->current = cfg;
	r->kubeconfig = dup_or_null(opts->kubeconfig);
	r->context = dup_or_null(opts->context);
	r->namespace = dup_or_null(opts->namespace);
	r->opts = (struct k8s_config_options){r->kubeconfig, r->context, r->namespace};
	for (p = strtok_r(src, ":", &save); p && r->n_paths < KC_FILES_MAX;
	     p = strtok_r(NULL, ":", &save))
		if (!(r->paths[r->n_paths++] = strdup(p)))
			goto nomem;
	free(src);
	src = NULL;
	files_changed(r);           /* what it is now: only later changes count */
	worker_init(&r->w);
	if (worker_start(&r->w, reload_main, r) != 0) {
		worker_destroy(&r->w);
		r->n_loaded = 0;
		kc_reload_free(r);
		return -EAGAIN;
	}
	*out = r;
	return 0;
nomem:
	free(src);
	if (r)
		kc_reload_free(r);
	return -ENOMEM;
}

void kc_reload_free(struct kc_reload *r)
{
	for (size_t i = 0; i < r->n_paths; i++)
		free(r->paths[i]);
	for (size_t i = 0; i < r->n_loaded; i++)
		kubeconfig_free(r->loaded[i]);
	free(r->loaded);
	free(r->kubeconfig);
	free(r->context);
	free(r->namespace);
	free(r);
}

void kc_reload_stop(struct kc_reload *r)
{
	if (!r)
		return;
	worker_stop(&r->w);
	worker_destroy(&r->w);
}
