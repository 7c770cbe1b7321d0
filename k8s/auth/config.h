/*
 * kubeconfig: which cluster, which user, which namespace — loaded at start-up,
 * and again by mount/kcreload.c when the file is rewritten while mounted.
 *
 * kubeconfig_load() follows kubectl's rules (docs/k8s-client.md, "kubeconfig"):
 * an explicit file is used alone; else $KUBECONFIG is a ':'-separated list merged
 * (first file defining a cluster/user/context name wins, first non-empty
 * current-context wins, missing files ignored); else ~/.kube/config; else the
 * in-cluster service account. Certificate and key material is read into memory
 * here (file or -data form, base64-decoded); relative paths are resolved against
 * the directory of the kubeconfig file that named them. Secrets are kept only in
 * this struct and are never logged.
 *
 * Owner: the caller of kubeconfig_load, freed with kubeconfig_free. Immutable
 * after load, so any thread may read it.
 */
#ifndef ARENAFS_K8S_CONFIG_H
#define ARENAFS_K8S_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "k8s/error.h"

struct k8s_exec_env {
	char *name;
	char *value;
};

/* users[].user.exec: an ExecCredential plugin. */
struct k8s_exec_config {
	char *api_version;            /* client.authentication.k8s.io/v1 or v1beta1 */
	char *command;                /* resolved like kubectl: relative to the kubeconfig's dir if it has a '/' */
	char **args;
	size_t n_args;
	struct k8s_exec_env *env;
	size_t n_env;
	bool provide_cluster_info;
	char *interactive_mode;       /* Never | IfAvailable | Always, or NULL */
};

struct k8s_config {
	char *source;                 /* the kubeconfig path(s) or "in-cluster": for cluster/context */
	char *context;                /* context name; "" for in-cluster */
	char *cluster;                /* cluster name (a kubeconfig key, not a secret) */
	char *user;                   /* user name (a kubeconfig key, not a secret) */
	char *namespace;              /* option, else the context's, else "default" */

	char *server;                 /* "https://10.0.0.1:6443", no trailing slash */
	char *tls_server_name;        /* NULL: the server's host name */
	char *proxy_url;              /* NULL: none */
	bool insecure_skip_tls_verify;
	char *ca_pem;                 /* NULL: the system's CAs */
	size_t ca_pem_len;

	/* Credentials. At most one of token/token_file/exec/basic is used, in this order. */
	char *client_cert_pem;        /* client-certificate[-data], PEM, or NULL */
	size_t client_cert_pem_len;
	char *client_key_pem;         /* client-key[-data], PEM, or NULL */
	size_t client_key_pem_len;
	char *token;                  /* static bearer token, or NULL */
	char *token_file;             /* absolute path of a token file re-read periodically, or NULL */
	char *username;               /* basic auth, or NULL */
	char *password;
	struct k8s_exec_config *exec; /* NULL: no plugin */
};

struct k8s_config_options {
	const char *kubeconfig;       /* explicit path (not merged), or NULL */
	const char *context;          /* override of current-context, or NULL */
	const char *namespace;        /* override of the context's namespace, or NULL */
};

/*
 * Loads the configuration. On failure returns -errno (ENOENT: no file and not in
 * a cluster; EINVAL: bad YAML — message with line and column —, unknown context,
 * no current context, CA together with insecure-skip-tls-verify, unreadable
 * certificate) with a one-line message in err.
 */
int kubeconfig_load(const struct k8s_config_options *opts, struct k8s_config **out,
		    struct k8s_error *err);
void kubeconfig_free(struct k8s_config *cfg);

#endif
