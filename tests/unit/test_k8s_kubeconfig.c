/* Tests k8s/auth/kubeconfig.c: kubectl's merge rules, every credential form, paths, errors. */
#include "k8s/auth/config.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define FIX(name)      harness_fixture("kubeconfig/" name)
#define FIX_PATH(name) harness_fixture(strcat(strcpy(fixbuf, "kubeconfig/"), name))

static char fixbuf[256];

/* harness_fixture() returns a static buffer: copy each path before joining them. */
static void fixture_list(char *buf, size_t size, const char *a, const char *b, const char *mid,
                         const char *c)
{
	char pa[2048], pb[2048], pc[2048];

	snprintf(pa, sizeof(pa), "%s", FIX_PATH(a));
	snprintf(pb, sizeof(pb), "%s", FIX_PATH(b));
	snprintf(pc, sizeof(pc), "%s", c ? FIX_PATH(c) : "");
	snprintf(buf, size, "%s:%s%s%s", pa, pb, mid, pc);
}

/* Loads with KUBECONFIG, HOME and the service-account variables set as given (NULL: unset). */
static int load_env(const char *kubeconfig_env, const char *home, const char *explicit_path,
                    const char *context, const char *ns, struct k8s_config **cfg,
                    struct k8s_error *err)
{
	struct k8s_config_options opts = {explicit_path, context, ns};

	if (kubeconfig_env)
		setenv("KUBECONFIG", kubeconfig_env, 1);
	else
		unsetenv("KUBECONFIG");
	if (home)
		setenv("HOME", home, 1);
	else
		setenv("HOME", "/nonexistent-home", 1);
	k8s_error_clear(err);
	return kubeconfig_load(&opts, cfg, err);
}

static int load(const char *path, const char *context, struct k8s_config **cfg,
                struct k8s_error *err)
{
	return load_env(NULL, NULL, path, context, NULL, cfg, err);
}

static void restore_env(void)
{
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("ARENAFS_SERVICEACCOUNT_DIR");
}

TEST(kubeconfig_merge_first_definition_and_first_current_context_win)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;
	char list[8192];

	restore_env();
	/* a missing file in the list is ignored; merge-c's current-context comes too late */
	fixture_list(list, sizeof(list), "merge-a.yaml", "merge-b.yaml",
	             ":/nonexistent/kubeconfig::", "merge-c.yaml");
	CHECK_INT_EQ(load_env(list, NULL, NULL, NULL, NULL, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR_EQ(cfg->context, "ctx-b");
		CHECK_STR_EQ(cfg->cluster, "only-b");
		CHECK_STR_EQ(cfg->server, "https://b.example:6443");
		CHECK_STR_EQ(cfg->tls_server_name, "kubernetes.internal");
		CHECK_STR_EQ(cfg->proxy_url, "http://proxy.example:3128");
		CHECK_STR_EQ(cfg->user, "shared-user");
		CHECK_STR_EQ(cfg->token, "token-from-a"); /* a defined shared-user first */
		CHECK_STR_EQ(cfg->namespace, "default");
		CHECK_STR_CONTAINS(cfg->source, "merge-a.yaml:");
		CHECK(!strstr(cfg->source, "nonexistent"));
	}
	kubeconfig_free(cfg);
	cfg = NULL;

	/* shared-ctx: a's definition wins over b's; a's cluster "shared" wins too */
	CHECK_INT_EQ(load_env(list, NULL, NULL, "shared-ctx", NULL, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR_EQ(cfg->server, "https://first.example:6443"); /* trailing '/' dropped */
		CHECK(cfg->insecure_skip_tls_verify);
		CHECK_STR_EQ(cfg->namespace, "from-a");
	}
	kubeconfig_free(cfg);
	cfg = NULL;

	/* a context defined only in a later file is found; namespace= overrides */
	CHECK_INT_EQ(load_env(list, NULL, NULL, "ctx-c", "team-x", &cfg, &err), 0);
	if (cfg) {
		CHECK_STR_EQ(cfg->server, "https://a.example:6443");
		CHECK_STR_EQ(cfg->namespace, "team-x");
		CHECK_STR_EQ(cfg->user, "");
		CHECK(!cfg->token && !cfg->exec && !cfg->client_cert_pem);
	}
	kubeconfig_free(cfg);
	restore_env();
}

TEST(kubeconfig_explicit_file_is_not_merged)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;
	char list[8192];

	restore_env();
	fixture_list(list, sizeof(list), "merge-b.yaml", "merge-a.yaml", "", NULL);
	/* merge-c alone: its current-context shared-ctx is not defined in it */
	CHECK_INT_EQ(load_env(list, NULL, FIX("merge-c.yaml"), NULL, NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "context \"shared-ctx\" not found");
	CHECK(cfg == NULL);
	restore_env();
}

TEST(kubeconfig_home_config_and_missing_everything)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;
	char home[4096];

	restore_env();
	snprintf(home, sizeof(home), "%s", harness_fixture("kubeconfig/home"));
	CHECK_INT_EQ(load_env(NULL, home, NULL, NULL, NULL, &cfg, &err), 0);
	if (cfg)
		CHECK_STR_EQ(cfg->server, "https://home.example:6443");
	kubeconfig_free(cfg);
	cfg = NULL;

	CHECK_INT_EQ(load_env(NULL, "/nonexistent-home", NULL, NULL, NULL, &cfg, &err), -ENOENT);
	CHECK_STR_CONTAINS(err.message, "/nonexistent-home/.kube/config does not exist");
	CHECK_STR_CONTAINS(err.message, "not running in a cluster");
	CHECK_INT_EQ(load_env("/nope/a:/nope/b", NULL, NULL, NULL, NULL, &cfg, &err), -ENOENT);
	CHECK_STR_CONTAINS(err.message,
	                   "none of the files in $KUBECONFIG (/nope/a:/nope/b) exists");
	CHECK_INT_EQ(load("/nope/explicit.yaml", NULL, &cfg, &err), -ENOENT);
	CHECK_STR_EQ(err.message,
	             "cannot read kubeconfig /nope/explicit.yaml: No such file or directory");
	restore_env();
}

TEST(kubeconfig_in_cluster_service_account)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;

	restore_env();
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	setenv("ARENAFS_SERVICEACCOUNT_DIR", FIX("serviceaccount"), 1);
	CHECK_INT_EQ(load_env(NULL, "/nonexistent-home", NULL, NULL, NULL, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR_EQ(cfg->server, "https://10.96.0.1:443");
		CHECK_STR_EQ(cfg->source, "in-cluster");
		CHECK_STR_EQ(cfg->namespace, "team-sa");
		CHECK_STR_CONTAINS(cfg->token_file, "serviceaccount/token");
		CHECK(cfg->token == NULL);
		CHECK(cfg->ca_pem && strstr(cfg->ca_pem, "BEGIN CERTIFICATE"));
	}
	kubeconfig_free(cfg);
	cfg = NULL;
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	CHECK_INT_EQ(load_env(NULL, "/nonexistent-home", NULL, NULL, "other", &cfg, &err), 0);
	if (cfg) {
		CHECK_STR_EQ(cfg->server, "https://[fd00::1]:443");
		CHECK_STR_EQ(cfg->namespace, "other");
	}
	kubeconfig_free(cfg);
	cfg = NULL;
	setenv("ARENAFS_SERVICEACCOUNT_DIR", "/nonexistent-sa", 1);
	CHECK_INT_EQ(load_env(NULL, "/nonexistent-home", NULL, NULL, NULL, &cfg, &err), -ENOENT);
	CHECK_STR_CONTAINS(err.message, "/nonexistent-sa/token");
	restore_env();
}

TEST(kubeconfig_every_credential_form)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;

	restore_env();
	CHECK_INT_EQ(load(FIX("creds.yaml"), NULL, &cfg, &err), 0); /* current-context: token */
	if (cfg) {
		CHECK_STR_EQ(cfg->token, "static-token"); /* token beats tokenFile */
		CHECK_STR_EQ(cfg->namespace, "team-a");
		CHECK(cfg->ca_pem &&
		      strstr(cfg->ca_pem, "UExBQ0VIT0xERVIgQ0EgRk9SIFRFU1RTIE9OTFk="));
		CHECK_INT_EQ(cfg->ca_pem_len, strlen(cfg->ca_pem));
		CHECK(!cfg->insecure_skip_tls_verify);
	}
	kubeconfig_free(cfg);

	CHECK_INT_EQ(load(FIX("creds.yaml"), "token-file", &cfg, &err), 0);
	if (cfg) {
		CHECK(cfg->token == NULL);
		CHECK(cfg->token_file && cfg->token_file[0] == '/');
		CHECK_STR_CONTAINS(cfg->token_file, "kubeconfig/token.txt");
	}
	kubeconfig_free(cfg);

	CHECK_INT_EQ(load(FIX("creds.yaml"), "cert-file", &cfg, &err), 0);
	if (cfg) {
		/* -data wins over a file that does not even exist */
		CHECK(cfg->ca_pem &&
		      strstr(cfg->ca_pem, "UExBQ0VIT0xERVIgQ0EgRk9SIFRFU1RTIE9OTFk="));
		CHECK(cfg->client_cert_pem &&
		      strstr(cfg->client_cert_pem, "UExBQ0VIT0xERVIgQ0xJRU5U"));
		CHECK(cfg->client_key_pem && strstr(cfg->client_key_pem, "BEGIN PRIVATE KEY"));
	}
	kubeconfig_free(cfg);

	CHECK_INT_EQ(load(FIX("creds.yaml"), "cert-data", &cfg, &err), 0);
	if (cfg) {
		CHECK(cfg->client_cert_pem &&
		      strstr(cfg->client_cert_pem, "UExBQ0VIT0xERVIgREFUQSBDRVJU"));
		CHECK(cfg->client_key_pem && strstr(cfg->client_key_pem, "UExBQ0VIT0xERVIgS0VZ"));
		CHECK_INT_EQ(cfg->client_key_pem_len, strlen(cfg->client_key_pem));
	}
	kubeconfig_free(cfg);

	CHECK_INT_EQ(load(FIX("creds.yaml"), "basic", &cfg, &err), 0);
	if (cfg) {
		CHECK_STR_EQ(cfg->username, "alice");
		CHECK_STR_EQ(cfg->password, "s3cret");
	}
	kubeconfig_free(cfg);

	CHECK_INT_EQ(load(FIX("creds.yaml"), "exec", &cfg, &err), 0);
	if (cfg && cfg->exec) {
		CHECK_STR_EQ(cfg->exec->api_version, "client.authentication.k8s.io/v1");
		CHECK(cfg->exec->command[0] == '/');
		CHECK_STR_CONTAINS(cfg->exec->command, "kubeconfig/./plugins/exec-token.sh");
		CHECK_INT_EQ(cfg->exec->n_args, 2);
		if (cfg->exec->n_args == 2) {
			CHECK_STR_EQ(cfg->exec->args[0], "--cluster");
			CHECK_STR_EQ(cfg->exec->args[1], "test");
		}
		CHECK_INT_EQ(cfg->exec->n_env, 1);
		if (cfg->exec->n_env == 1) {
			CHECK_STR_EQ(cfg->exec->env[0].name, "PLUGIN_GREETING");
			CHECK_STR_EQ(cfg->exec->env[0].value, "hello");
		}
		CHECK(cfg->exec->provide_cluster_info);
		CHECK_STR_EQ(cfg->exec->interactive_mode, "Never");
	} else {
		CHECK(cfg && cfg->exec);
	}
	kubeconfig_free(cfg);

	/* a bare command name stays a name, looked up in PATH when it runs */
	CHECK_INT_EQ(load(FIX("creds.yaml"), "exec-path", &cfg, &err), 0);
	if (cfg && cfg->exec)
		CHECK_STR_EQ(cfg->exec->command, "sh");
	kubeconfig_free(cfg);

	CHECK_INT_EQ(load(FIX("creds.yaml"), "anonymous", &cfg, &err), 0);
	if (cfg)
		CHECK(!cfg->token && !cfg->token_file && !cfg->exec && !cfg->username &&
		      !cfg->client_cert_pem);
	kubeconfig_free(cfg);
}

TEST(kubeconfig_relative_paths_follow_the_file_that_named_them)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;

	CHECK_INT_EQ(load(FIX("sub/relative.yaml"), NULL, &cfg, &err), 0);
	if (cfg) {
		CHECK(cfg->ca_pem && strstr(cfg->ca_pem, "BEGIN CERTIFICATE"));
		CHECK(cfg->client_cert_pem && cfg->client_key_pem);
		CHECK(cfg->token_file && cfg->token_file[0] == '/');
		CHECK_STR_CONTAINS(cfg->token_file, "kubeconfig/sub/../token.txt");
	} else {
		fprintf(stderr, "  load: %s\n", err.message);
	}
	kubeconfig_free(cfg);
}

TEST(kubeconfig_errors_name_what_is_wrong)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;

	CHECK_INT_EQ(load(FIX("bad-yaml.yaml"), NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(
	    err.message, "bad-yaml.yaml:7:6: invalid YAML: did not find expected ',' or ']' while "
	                 "parsing a flow sequence started at line 6 column 13");
	CHECK_INT_EQ(load(FIX("bad-type.yaml"), NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "bad-type.yaml:5:3: clusters must be a list");
	CHECK_INT_EQ(load(FIX("no-current.yaml"), NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "no current-context is set");
	CHECK_INT_EQ(load(FIX("creds.yaml"), "nope", &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "context \"nope\" not found");
	CHECK_INT_EQ(load(FIX("creds.yaml"), "no-such-user", &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "user \"ghost\" of context \"no-such-user\" not found");
	CHECK_INT_EQ(load(FIX("creds.yaml"), "no-such-cluster", &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message,
	                   "cluster \"ghost\" of context \"no-such-cluster\" not found");
	CHECK_INT_EQ(load(FIX("ca-and-insecure-error.yaml"), NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message,
	                   "both a certificate authority and insecure-skip-tls-verify");
	CHECK_INT_EQ(load(FIX("missing-cert-error.yaml"), NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "cannot read client-certificate ");
	CHECK_STR_CONTAINS(err.message, "nope/client.pem of user \"x\": No such file or directory");
	CHECK_INT_EQ(load(FIX("bad-data-error.yaml"), NULL, &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "bad-data-error.yaml:7:33: certificate-authority-data of "
	                                "cluster \"x\" is not base64-encoded PEM");
	CHECK(!strstr(err.message, "TOPSECRETVALUE"));
	CHECK_INT_EQ(load(FIX("creds.yaml"), "token", &cfg, &err), 0);
	kubeconfig_free(cfg);
	cfg = NULL;
	CHECK_INT_EQ(load_env(NULL, NULL, FIX("creds.yaml"), NULL, "Bad_NS", &cfg, &err), -EINVAL);
	CHECK_STR_CONTAINS(err.message, "invalid namespace \"Bad_NS\"");
	CHECK(cfg == NULL);
}

/* A kubeconfig that is a directory (a mistyped path, ~/.kube instead of
 * ~/.kube/config) says so, not "invalid YAML: input error" (issue 23). */
TEST(kubeconfig_that_is_a_directory_says_so)
{
	struct k8s_config *cfg = NULL;
	struct k8s_error err;
	char dir[2048];

	restore_env();
	snprintf(dir, sizeof(dir), "%s", harness_fixture("kubeconfig/home/.kube"));
	CHECK_INT_EQ(load(dir, NULL, &cfg, &err), -EISDIR);
	CHECK_STR_CONTAINS(err.message, "cannot read kubeconfig ");
	CHECK_STR_CONTAINS(err.message, "/.kube: it is a directory, not a kubeconfig file");
	CHECK(!strstr(err.message, "YAML"));
	CHECK(cfg == NULL);
}
