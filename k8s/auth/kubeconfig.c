/*
 * kubeconfig loading (see config.h): libyaml documents, kubectl's merge of a
 * $KUBECONFIG list, context selection, and the in-cluster service account.
 *
 * Each file is parsed whole with yaml_parser_load and kept until the chosen
 * context's cluster and user have been read, so every error can name the file,
 * line and column of the node it is about. Certificate, key and CA material is
 * read into memory here, never copied to disk. Nothing here logs; error messages
 * name keys and files, never values of secret fields.
 *
 * Called by mount/ at start-up and when the kubeconfig is rewritten (kcreload.c),
 * and by the test tools (tests/tools/).
 */
#include "k8s/auth/config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "k8s/auth/kcfile.h"
#include "k8s/names.h"
#include "k8s/auth/secret.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/suggest.h"

#define SERVICEACCOUNT_DIR     "/var/run/secrets/kubernetes.io/serviceaccount"
#define SERVICEACCOUNT_DIR_ENV "ARENAFS_SERVICEACCOUNT_DIR" /* tests point this elsewhere */
#define NAMESPACE_FILE_MAX     4096 /* a namespace name is at most 63 bytes */

/* A named cluster, user or context: the first file defining the name wins. */
struct kc_entry {
	const char *name;
	struct kc_file *file;
	yaml_node_t *node; /* the inner mapping ("cluster:", "user:", "context:"); may be NULL */
};

struct kc_list {
	struct kc_entry *v;
	size_t n, cap;
};

struct kc_merge {
	struct kc_file **files;
	size_t n_files;
	struct kc_list clusters, users, contexts;
	const char *current_context;
	struct strbuf source; /* the files that were read, ':'-joined */
};

/* ---- merging ---- */

static struct kc_entry *list_find(struct kc_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

/* Adds the entries of one top-level list ("clusters") of f; earlier names win. */
static int merge_list(struct kc_file *f, yaml_node_t *root, const char *key, const char *inner,
                      struct kc_list *l, struct k8s_error *err)
{
	yaml_node_t *seq = kc_map_get(f, root, key);
	char what[160];

	if (!seq)
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE) {
		snprintf(what, sizeof(what), "%s must be a list", key);
		return kc_error(err, f, seq, what);
	}
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(&f->doc, *it);
		const char *name;
		yaml_node_t *body;
		int rc;

		if (!item || item->type != YAML_MAPPING_NODE) {
			snprintf(what, sizeof(what), "each entry of %s must be a mapping", key);
			return kc_error(err, f, item, what);
		}
		rc = kc_get_str(f, item, "name", &name, err);
		if (rc)
			return rc;
		if (!name || !*name) {
			snprintf(what, sizeof(what), "an entry of %s has no name", key);
			return kc_error(err, f, item, what);
		}
		body = kc_map_get(f, item, inner);
		if (body && body->type != YAML_MAPPING_NODE) {
			snprintf(what, sizeof(what), "%s of %s \"%s\" must be a mapping", inner,
			         key, name);
			return kc_error(err, f, body, what);
		}
		if (list_find(l, name))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 8;
			struct kc_entry *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return k8s_error_set(err, ENOMEM, "out of memory reading %s",
				                     f->path);
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = (struct kc_entry){name, f, body};
	}
	return 0;
}

static int merge_file(struct kc_merge *m, struct kc_file *f, struct k8s_error *err)
{
	yaml_node_t *root = yaml_document_get_root_node(&f->doc);
	const char *cur;
	int rc;

	if (!root || kc_is_null(root))
		return 0; /* an empty file is an empty config */
	if (root->type != YAML_MAPPING_NODE)
		return kc_error(err, f, root,
		                "a kubeconfig must be a mapping (apiVersion, clusters, ...)");
	if ((rc = merge_list(f, root, "clusters", "cluster", &m->clusters, err)) ||
	    (rc = merge_list(f, root, "users", "user", &m->users, err)) ||
	    (rc = merge_list(f, root, "contexts", "context", &m->contexts, err)) ||
	    (rc = kc_get_str(f, root, "current-context", &cur, err)))
		return rc;
	if (!m->current_context && cur && *cur)
		m->current_context = cur;
	return 0;
}

static int merge_add(struct kc_merge *m, const char *path, bool missing_ok, struct k8s_error *err)
{
	struct kc_file *f, **files;
	int rc;

	for (size_t i = 0; i < m->n_files; i++)
		if (strcmp(m->files[i]->path, path) == 0)
			return 0;
	rc = kc_file_load(path, &f, err);
	if (rc == -ENOENT && missing_ok)
		return 0;
	if (rc)
		return rc;
	files = realloc(m->files, (m->n_files + 1) * sizeof(*files));
	if (!files) {
		kc_file_free(f);
		return k8s_error_set(err, ENOMEM, "out of memory reading %s", path);
	}
	m->files = files;
	m->files[m->n_files++] = f;
	if (m->source.len)
		strbuf_putc(&m->source, ':');
	strbuf_puts(&m->source, path);
	return merge_file(m, f, err);
}

static void merge_free(struct kc_merge *m)
{
	for (size_t i = 0; i < m->n_files; i++)
		kc_file_free(m->files[i]);
	free(m->files);
	free(m->clusters.v);
	free(m->users.v);
	free(m->contexts.v);
	strbuf_free(&m->source);
}

/* ---- building the config ---- */

static char *xstrdup(const char *s, int *rc)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*rc = -ENOMEM;
	return d;
}

/* path resolved against the directory of the file that named it. */
static int build_cluster(struct k8s_config *cfg, struct kc_entry *e, struct k8s_error *err)
{
	char owner[300];
	const char *server, *tls_name, *proxy;
	int rc = 0;

	snprintf(owner, sizeof(owner), "cluster \"%s\"", e->name);
	if ((rc = kc_get_str(e->file, e->node, "server", &server, err)) ||
	    (rc = kc_get_str(e->file, e->node, "tls-server-name", &tls_name, err)) ||
	    (rc = kc_get_str(e->file, e->node, "proxy-url", &proxy, err)) ||
	    (rc = kc_get_bool(e->file, e->node, "insecure-skip-tls-verify",
	                      &cfg->insecure_skip_tls_verify, err)))
		return rc;
	if (!server || !*server)
		return kc_error(err, e->file, e->node, "cluster has no server");
	if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
		return k8s_error_set(err, EINVAL,
		                     "%s: server of %s must start with https:// (got \"%s\")",
		                     e->file->path, owner, server);
	rc = kc_read_pem(e->file, e->node, "certificate-authority", owner, &cfg->ca_pem,
	                 &cfg->ca_pem_len, err);
	if (rc)
		return rc;
	if (cfg->ca_pem && cfg->insecure_skip_tls_verify)
		return k8s_error_set(err, EINVAL,
		                     "%s: %s sets both a certificate authority and "
		                     "insecure-skip-tls-verify; use one or the other",
		                     e->file->path, owner);
	cfg->server = xstrdup(server, &rc);
	if (cfg->server) {
		size_t n = strlen(cfg->server);

		while (n > 0 && cfg->server[n - 1] == '/')
			cfg->server[--n] = '\0';
	}
	cfg->tls_server_name = xstrdup(tls_name && *tls_name ? tls_name : NULL, &rc);
	cfg->proxy_url = xstrdup(proxy && *proxy ? proxy : NULL, &rc);
	return rc ? k8s_error_set(err, ENOMEM, "out of memory") : 0;
}

/* exec's args (a list of strings) into ex; *oom set when a copy failed. 0 or the error. */
static int exec_args(struct k8s_exec_config *ex, struct kc_file *f, yaml_node_t *n, int *oom,
                     struct k8s_error *err)
{
	yaml_node_t *args = kc_map_get(f, n, "args");
	size_t cnt;

	if (!args)
		return 0;
	if (args->type != YAML_SEQUENCE_NODE)
		return kc_error(err, f, args, "exec args must be a list of strings");
	cnt = (size_t)(args->data.sequence.items.top - args->data.sequence.items.start);
	ex->args = calloc(cnt + 1, sizeof(char *));
	if (!ex->args)
		return k8s_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt; i++) {
		yaml_node_t *a = yaml_document_get_node(&f->doc, args->data.sequence.items.start[i]);

		if (!kc_scalar(a))
			return kc_error(err, f, a, "exec args must be a list of strings");
		ex->args[ex->n_args++] = xstrdup(kc_scalar(a), oom);
	}
	return 0;
}

/* exec's env (a list of {name, value}) into ex; *oom set when a copy failed. */
static int exec_env(struct k8s_exec_config *ex, struct kc_file *f, yaml_node_t *n, int *oom,
                    struct k8s_error *err)
{
	yaml_node_t *env = kc_map_get(f, n, "env");
	size_t cnt;
	int rc;

	if (!env)
		return 0;
	if (env->type != YAML_SEQUENCE_NODE)
		return kc_error(err, f, env, "exec env must be a list of {name, value}");
	cnt = (size_t)(env->data.sequence.items.top - env->data.sequence.items.start);
	ex->env = calloc(cnt + 1, sizeof(*ex->env));
	if (!ex->env)
		return k8s_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt; i++) {
		yaml_node_t *e = yaml_document_get_node(&f->doc, env->data.sequence.items.start[i]);
		const char *name, *value;

		if (!e || e->type != YAML_MAPPING_NODE)
			return kc_error(err, f, e, "exec env must be a list of {name, value}");
		if ((rc = kc_get_str(f, e, "name", &name, err)) ||
		    (rc = kc_get_str(f, e, "value", &value, err)))
			return rc;
		if (!name || !*name || strchr(name, '='))
			return kc_error(err, f, e, "exec env entry needs a name without '='");
		ex->env[ex->n_env].name = xstrdup(name, oom);
		ex->env[ex->n_env++].value = xstrdup(value ? value : "", oom);
	}
	return 0;
}

static int build_exec(struct k8s_config *cfg, struct kc_file *f, yaml_node_t *n, const char *owner,
                      struct k8s_error *err)
{
	struct k8s_exec_config *ex = calloc(1, sizeof(*ex));
	const char *api, *cmd, *mode;
	int rc = 0, ret;

	if (!ex)
		return k8s_error_set(err, ENOMEM, "out of memory");
	cfg->exec = ex;
	if (n->type != YAML_MAPPING_NODE)
		return kc_error(err, f, n, "exec must be a mapping");
	if ((rc = kc_get_str(f, n, "apiVersion", &api, err)) ||
	    (rc = kc_get_str(f, n, "command", &cmd, err)) ||
	    (rc = kc_get_str(f, n, "interactiveMode", &mode, err)) ||
	    (rc = kc_get_bool(f, n, "provideClusterInfo", &ex->provide_cluster_info, err)))
		return rc;
	if (!cmd || !*cmd)
		return kc_error(err, f, n, "exec has no command");
	if (!api || (strcmp(api, "client.authentication.k8s.io/v1") != 0 &&
	             strcmp(api, "client.authentication.k8s.io/v1beta1") != 0))
		return kc_error(
		    err, f, n,
		    "exec apiVersion must be client.authentication.k8s.io/v1 or v1beta1");
	if (mode && strcmp(mode, "Never") != 0 && strcmp(mode, "IfAvailable") != 0 &&
	    strcmp(mode, "Always") != 0)
		return kc_error(err, f, kc_map_get(f, n, "interactiveMode"),
		                "interactiveMode must be Never, IfAvailable or Always");
	if (mode && strcmp(mode, "Always") == 0)
		return k8s_error_set(err, EINVAL,
		                     "%s: the exec plugin of %s needs a terminal (interactiveMode: "
		                     "Always), which a filesystem daemon does not have",
		                     f->path, owner);
	ex->api_version = xstrdup(api, &rc);
	ex->interactive_mode = xstrdup(mode, &rc);
	/* kubectl resolves a command with a '/' against the kubeconfig's directory;
	 * a bare name is looked up in PATH when it runs. */
	ex->command = strchr(cmd, '/') ? kc_resolve_path(f, cmd) : xstrdup(cmd, &rc);
	if (!ex->command)
		rc = -ENOMEM;

	if ((ret = exec_args(ex, f, n, &rc, err)) || (ret = exec_env(ex, f, n, &rc, err)))
		return ret;
	return rc ? k8s_error_set(err, ENOMEM, "out of memory") : 0;
}

static int build_user(struct k8s_config *cfg, struct kc_entry *e, struct k8s_error *err)
{
	static const char *const unsupported[] = {"auth-provider", "as", "as-uid", "as-groups",
	                                          "as-user-extra"};
	struct kc_file *f = e->file;
	char owner[300];
	const char *token, *token_file, *user, *pass;
	yaml_node_t *ex;
	int rc = 0;

	snprintf(owner, sizeof(owner), "user \"%s\"", e->name);
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		yaml_node_t *n = kc_map_get(f, e->node, unsupported[i]);

		if (n) {
			char what[400];

			snprintf(what, sizeof(what), "%s of %s is not supported by arenafs%s",
			         unsupported[i], owner,
			         i == 0 ? " (auth providers were removed from kubectl; use exec)"
			                : "");
			return kc_error(err, f, n, what);
		}
	}
	if ((rc = kc_read_pem(f, e->node, "client-certificate", owner, &cfg->client_cert_pem,
	                      &cfg->client_cert_pem_len, err)) ||
	    (rc = kc_read_pem(f, e->node, "client-key", owner, &cfg->client_key_pem,
	                      &cfg->client_key_pem_len, err)))
		return rc;
	if (!cfg->client_cert_pem != !cfg->client_key_pem)
		return k8s_error_set(err, EINVAL, "%s: %s has a client %s but no client %s",
		                     f->path, owner, cfg->client_cert_pem ? "certificate" : "key",
		                     cfg->client_cert_pem ? "key" : "certificate");
	if ((rc = kc_get_str(f, e->node, "token", &token, err)) ||
	    (rc = kc_get_str(f, e->node, "tokenFile", &token_file, err)) ||
	    (rc = kc_get_str(f, e->node, "username", &user, err)) ||
	    (rc = kc_get_str(f, e->node, "password", &pass, err)))
		return rc;
	if (token && *token) {
		cfg->token = xstrdup(token, &rc);
	} else if (token_file && *token_file) {
		cfg->token_file = kc_resolve_path(f, token_file);
		if (!cfg->token_file)
			return k8s_error_set(err, ENOMEM, "out of memory");
		if (access(cfg->token_file, R_OK) != 0)
			return k8s_error_set(err, EINVAL, "cannot read tokenFile %s of %s: %s",
			                     cfg->token_file, owner, strerror(errno));
	}
	if (user && *user) {
		cfg->username = xstrdup(user, &rc);
		cfg->password = xstrdup(pass ? pass : "", &rc);
	}
	ex = kc_map_get(f, e->node, "exec");
	if (ex && (rc = build_exec(cfg, f, ex, owner, err)))
		return rc;
	return rc ? k8s_error_set(err, ENOMEM, "out of memory") : 0;
}

/* The context asked for is not in the kubeconfig: the error names the ones that are
 * (the first CONTEXTS_NAMED of them), and the one meant when it is a typo's away. */
#define CONTEXTS_NAMED 10

static int context_not_found(struct kc_merge *m, const char *ctx_name, struct k8s_error *err)
{
	const char *names[CONTEXTS_NAMED + 1];
	size_t n = m->contexts.n < CONTEXTS_NAMED ? m->contexts.n : CONTEXTS_NAMED;
	const char *near;
	struct strbuf sb = STRBUF_INIT;
	int rc;

	if (m->contexts.n == 0)
		return k8s_error_set(err, EINVAL, "%s: context \"%s\" not found: it has no contexts",
		                     strbuf_str(&m->source), ctx_name);
	for (size_t i = 0; i < n; i++)
		names[i] = m->contexts.v[i].name;
	names[n] = NULL;
	near = k8s_suggest(ctx_name, names);
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", names[i]);
	if (m->contexts.n > n)
		strbuf_printf(&sb, ", ... (%zu in all)", m->contexts.n);
	if (!strbuf_ok(&sb))
		rc = k8s_error_set(err, ENOMEM, "out of memory");
	else if (near)
		rc = k8s_error_set(err, EINVAL, "%s: context \"%s\" not found (did you mean %s?); its "
		                   "contexts: %s", strbuf_str(&m->source), ctx_name, near,
		                   strbuf_str(&sb));
	else
		rc = k8s_error_set(err, EINVAL, "%s: context \"%s\" not found; its contexts: %s",
		                   strbuf_str(&m->source), ctx_name, strbuf_str(&sb));
	strbuf_free(&sb);
	return rc;
}

static int build_from_merge(struct kc_merge *m, const struct k8s_config_options *opts,
                            struct k8s_config *cfg, struct k8s_error *err)
{
	const char *src = strbuf_str(&m->source);
	const char *ctx_name =
	    opts && opts->context && *opts->context ? opts->context : m->current_context;
	const char *cluster, *user, *ns;
	struct kc_entry *ctx, *cl, *us;
	int rc = 0;

	if (!ctx_name)
		return k8s_error_set(err, EINVAL,
		                     "%s: no current-context is set; pass context=NAME or run "
		                     "kubectl config use-context NAME",
		                     src);
	ctx = list_find(&m->contexts, ctx_name);
	if (!ctx)
		return context_not_found(m, ctx_name, err);
	if ((rc = kc_get_str(ctx->file, ctx->node, "cluster", &cluster, err)) ||
	    (rc = kc_get_str(ctx->file, ctx->node, "user", &user, err)) ||
	    (rc = kc_get_str(ctx->file, ctx->node, "namespace", &ns, err)))
		return rc;
	if (!cluster || !*cluster)
		return kc_error(err, ctx->file, ctx->node, "the context names no cluster");
	cl = list_find(&m->clusters, cluster);
	if (!cl)
		return k8s_error_set(err, EINVAL, "%s: cluster \"%s\" of context \"%s\" not found",
		                     src, cluster, ctx_name);
	if (!cl->node)
		return kc_error(err, cl->file, NULL, "the cluster has no settings");
	us = user && *user ? list_find(&m->users, user) : NULL;
	if (user && *user && !us)
		return k8s_error_set(err, EINVAL, "%s: user \"%s\" of context \"%s\" not found",
		                     src, user, ctx_name);
	cfg->source = xstrdup(src, &rc);
	cfg->context = xstrdup(ctx_name, &rc);
	cfg->cluster = xstrdup(cluster, &rc);
	cfg->user = xstrdup(user ? user : "", &rc);
	if (opts && opts->namespace && *opts->namespace)
		ns = opts->namespace;
	cfg->namespace = xstrdup(ns && *ns ? ns : "default", &rc);
	if (rc)
		return k8s_error_set(err, ENOMEM, "out of memory");
	if ((rc = build_cluster(cfg, cl, err)))
		return rc;
	if (us && us->node && (rc = build_user(cfg, us, err)))
		return rc;
	return 0;
}

/* ---- in-cluster ---- */

static char *read_small_file(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len <= NAMESPACE_FILE_MAX)
		strbuf_append(&sb, buf, n);
	fclose(fp);
	if (len)
		*len = sb.len;
	if (!strbuf_ok(&sb)) {
		strbuf_free(&sb);
		errno = ENOMEM;
		return NULL;
	}
	return strbuf_take(&sb);
}

static bool in_cluster_possible(void)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST"),
	           *port = getenv("KUBERNETES_SERVICE_PORT");

	return host && *host && port && *port;
}

static const char *serviceaccount_dir(void)
{
	const char *d = getenv(SERVICEACCOUNT_DIR_ENV);

	return d && *d ? d : SERVICEACCOUNT_DIR;
}

/* rest.InClusterConfig: the service's host and port, the mounted token (re-read), CA, namespace. */
static int build_in_cluster(const struct k8s_config_options *opts, struct k8s_config *cfg,
                            struct k8s_error *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST"),
	           *port = getenv("KUBERNETES_SERVICE_PORT");
	const char *dir = serviceaccount_dir();
	struct strbuf sb = STRBUF_INIT;
	char *ns_text = NULL, *ca = NULL;
	int rc = 0;

	if (opts && opts->context && *opts->context)
		return k8s_error_set(
		    err, EINVAL,
		    "context=%s given, but no kubeconfig was found (running in-cluster)",
		    opts->context);
	strbuf_printf(&sb, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
	cfg->server = strbuf_take(&sb);
	strbuf_printf(&sb, "%s/token", dir);
	cfg->token_file = strbuf_take(&sb);
	if (!cfg->server || !cfg->token_file)
		return k8s_error_set(err, ENOMEM, "out of memory");
	if (access(cfg->token_file, R_OK) != 0)
		return k8s_error_set(err, ENOENT,
		                     "in-cluster: cannot read the service account token %s: %s",
		                     cfg->token_file, strerror(errno));
	strbuf_printf(&sb, "%s/ca.crt", dir);
	if (!strbuf_ok(&sb))
		return k8s_error_set(err, ENOMEM, "out of memory");
	ca = strbuf_take(&sb);
	rc = kc_read_pem_file(ca, "ca.crt", "the service account", &cfg->ca_pem, &cfg->ca_pem_len,
	                      err);
	free(ca);
	if (rc)
		return rc;
	strbuf_printf(&sb, "%s/namespace", dir);
	if (strbuf_ok(&sb))
		ns_text = read_small_file(strbuf_str(&sb), NULL);
	strbuf_free(&sb);
	if (ns_text)
		ns_text[strcspn(ns_text, " \t\r\n")] = '\0';
	if (opts && opts->namespace && *opts->namespace)
		cfg->namespace = strdup(opts->namespace);
	else
		cfg->namespace = strdup(ns_text && *ns_text ? ns_text : "default");
	free(ns_text);
	cfg->source = strdup("in-cluster");
	cfg->context = strdup("");
	cfg->cluster = strdup("in-cluster");
	cfg->user = strdup("serviceaccount");
	if (!cfg->namespace || !cfg->source || !cfg->context || !cfg->cluster || !cfg->user)
		return k8s_error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* ---- entry points ---- */

static char *home_config(void)
{
	const char *home = getenv("HOME");
	struct strbuf sb = STRBUF_INIT;

	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return NULL;
	strbuf_printf(&sb, "%s/.kube/config", home);
	return strbuf_take(&sb);
}

/* Fills m from the files kubectl would read. -ENOENT: none was there. */
static int merge_files(const struct k8s_config_options *opts, struct kc_merge *m,
                       struct k8s_error *err)
{
	const char *env = getenv("KUBECONFIG");
	char *list = NULL, *save = NULL, *home;
	int rc = 0;

	if (opts && opts->kubeconfig && *opts->kubeconfig)
		return merge_add(m, opts->kubeconfig, false, err);
	if (env && *env) {
		list = strdup(env);
		if (!list)
			return k8s_error_set(err, ENOMEM, "out of memory");
		for (char *p = strtok_r(list, ":", &save); p && !rc; p = strtok_r(NULL, ":", &save))
			rc = merge_add(m, p, true, err);
		free(list);
		if (!rc && m->n_files == 0)
			rc = k8s_error_set(err, ENOENT,
			                   "none of the files in $KUBECONFIG (%s) exists", env);
		return rc;
	}
	home = home_config();
	if (!home)
		return k8s_error_set(err, ENOENT, "no kubeconfig: $HOME is not set");
	rc = merge_add(m, home, true, err);
	if (!rc && m->n_files == 0)
		rc = k8s_error_set(err, ENOENT, "no kubeconfig: %s does not exist", home);
	free(home);
	return rc;
}

static int check_namespace(const struct k8s_config *cfg, struct k8s_error *err)
{
	if (!k8s_is_dns1123_label(cfg->namespace))
		return k8s_error_set(
		    err, EINVAL,
		    "invalid namespace \"%s\": must be a DNS-1123 label (lowercase "
		    "letters, digits and '-')",
		    cfg->namespace);
	return 0;
}

int kubeconfig_load(const struct k8s_config_options *opts, struct k8s_config **out,
                    struct k8s_error *err)
{
	struct kc_merge m = {0};
	struct k8s_config *cfg = calloc(1, sizeof(*cfg));
	bool explicit = opts && opts->kubeconfig && *opts->kubeconfig;
	int rc;

	*out = NULL;
	if (!cfg)
		return k8s_error_set(err, ENOMEM, "out of memory");
	rc = merge_files(opts, &m, err);
	if (rc == -ENOENT && !explicit && in_cluster_possible()) {
		k8s_error_clear(err);
		rc = build_in_cluster(opts, cfg, err);
	} else if (rc == -ENOENT && !explicit && err) {
		char why[K8S_ERROR_MESSAGE_MAX];

		snprintf(why, sizeof(why), "%s", err->message);
		k8s_error_set(err, ENOENT,
		              "%s, and not running in a cluster (KUBERNETES_SERVICE_HOST is unset)",
		              why);
	} else if (!rc) {
		rc = build_from_merge(&m, opts, cfg, err);
	}
	if (!rc)
		rc = check_namespace(cfg, err);
	merge_free(&m);
	if (rc) {
		kubeconfig_free(cfg);
		return rc;
	}
	*out = cfg;
	return 0;
}

void kubeconfig_free(struct k8s_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->source);
	free(cfg->context);
	free(cfg->cluster);
	free(cfg->user);
	free(cfg->namespace);
	free(cfg->server);
	free(cfg->tls_server_name);
	free(cfg->proxy_url);
	free(cfg->ca_pem);
	free(cfg->client_cert_pem);
	k8s_secret_free(cfg->client_key_pem, cfg->client_key_pem_len);
	k8s_secret_free(cfg->token, 0);
	free(cfg->token_file);
	free(cfg->username);
	k8s_secret_free(cfg->password, 0);
	if (cfg->exec) {
		free(cfg->exec->api_version);
		free(cfg->exec->command);
		for (size_t i = 0; i < cfg->exec->n_args; i++)
			free(cfg->exec->args[i]);
		free(cfg->exec->args);
		for (size_t i = 0; i < cfg->exec->n_env; i++) {
			free(cfg->exec->env[i].name);
			k8s_secret_free(cfg->exec->env[i].value, 0);
		}
		free(cfg->exec->env);
		free(cfg->exec->interactive_mode);
		free(cfg->exec);
	}
	free(cfg);
}
