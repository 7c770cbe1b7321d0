/* Tests k8s/auth/creds.c and k8s/auth/execcred.c: each credential form, re-reads, plugin runs and failures.
 */
#include "k8s/auth/creds.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char path[512];

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/arenafs-creds-test-XXXXXX");
		if (!mkdtemp(tmpdir))
			tmpdir[0] = '\0';
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static char *read_file(const char *path)
{
	static char buf[8192];
	FILE *fp = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (fp) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
	}
	buf[n] = '\0';
	return buf;
}

/* An exec config running a plugin of tests/fixtures/kubeconfig/plugins. */
struct exec_fixture {
	char command[1024];
	char *args[3];
	struct k8s_exec_env env[1];
	struct k8s_exec_config exec;
	struct k8s_config cfg;
};

static void exec_fixture(struct exec_fixture *f, const char *plugin, const char *api)
{
	static char ca[] = "-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n";
	char rel[256];

	memset(f, 0, sizeof(*f));
	snprintf(rel, sizeof(rel), "kubeconfig/plugins/%s", plugin);
	snprintf(f->command, sizeof(f->command), "%s", harness_fixture(rel));
	f->args[0] = "--cluster";
	f->args[1] = "test";
	f->env[0] = (struct k8s_exec_env){"PLUGIN_GREETING", "hello"};
	f->exec =
	    (struct k8s_exec_config){(char *)api, f->command, f->args, 2, f->env, 1, true, "Never"};
	f->cfg.server = "https://api.example:6443";
	f->cfg.ca_pem = ca;
	f->cfg.ca_pem_len = strlen(ca);
	f->cfg.exec = &f->exec;
}

TEST(creds_static_token_and_basic_auth)
{
	struct k8s_config cfg = {0};
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;

	cfg.token = "static-token";
	cfg.username = "ignored-because-token-wins";
	CHECK_INT_EQ(creds_new(&cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer static-token");
	CHECK(a.cert_pem == NULL);
	CHECK(!creds_invalidate(c, a.generation)); /* nothing new to present */
	creds_auth_clear(&a);
	creds_free(c);

	memset(&cfg, 0, sizeof(cfg));
	cfg.username = "alice";
	cfg.password = "s3cret";
	CHECK_INT_EQ(creds_new(&cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Basic YWxpY2U6czNjcmV0");
	creds_auth_clear(&a);
	creds_free(c);
}

TEST(creds_client_certificate_is_presented_with_the_token)
{
	static char cert[] = "-----BEGIN CERTIFICATE-----\nQw==\n-----END CERTIFICATE-----\n";
	static char key[] = "-----BEGIN PRIVATE KEY-----\nSw==\n-----END PRIVATE KEY-----\n";
	struct k8s_config cfg = {0};
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;

	cfg.client_cert_pem = cert;
	cfg.client_cert_pem_len = strlen(cert);
	cfg.client_key_pem = key;
	cfg.client_key_pem_len = strlen(key);
	CHECK_INT_EQ(creds_new(&cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK(a.authorization == NULL);
	CHECK_STR_EQ(a.cert_pem, cert);
	CHECK_INT_EQ(a.key_len, strlen(key));
	creds_auth_clear(&a);
	creds_free(c);
}

TEST(creds_token_file_is_reread_when_due_and_after_a_401)
{
	struct k8s_creds_options slow = {3600 * 1000, 0}, fast = {1, 0};
	struct k8s_config cfg = {0};
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;
	char path[512];
	uint64_t gen;

	snprintf(path, sizeof(path), "%s", tmp_path("token"));
	write_file(path, "  token-one\n");
	cfg.token_file = path;
	CHECK_INT_EQ(creds_new(&cfg, &slow, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer token-one"); /* whitespace trimmed */
	gen = a.generation;
	creds_auth_clear(&a);
	write_file(path, "token-two\n");
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer token-one"); /* not due for an hour */
	creds_auth_clear(&a);
	CHECK(creds_invalidate(c, gen));
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer token-two"); /* the 401 made it re-read */
	CHECK(a.generation != gen);
	creds_auth_clear(&a);
	creds_free(c);

	CHECK_INT_EQ(creds_new(&cfg, &fast, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer token-two");
	creds_auth_clear(&a);
	write_file(path, "token-three");
	usleep(20 * 1000);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer token-three");
	creds_auth_clear(&a);
	/* a token file that disappears: the last token is kept */
	unlink(path);
	usleep(20 * 1000);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer token-three");
	creds_auth_clear(&a);
	creds_free(c);

	/* and one that was never there is an error naming the file */
	CHECK_INT_EQ(creds_new(&cfg, &fast, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), -EACCES);
	CHECK_STR_CONTAINS(err.message, "cannot read token file ");
	CHECK_STR_CONTAINS(err.message, "No such file or directory");
	creds_free(c);
}

TEST(creds_exec_plugin_is_cached_until_a_401)
{
	struct exec_fixture f;
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;
	char count[512], record[512];
	uint64_t gen;

	exec_fixture(&f, "exec-token.sh", "client.authentication.k8s.io/v1");
	snprintf(count, sizeof(count), "%s", tmp_path("count-cached"));
	snprintf(record, sizeof(record), "%s", tmp_path("record"));
	unlink(count);
	setenv("EXEC_COUNT_FILE", count, 1);
	setenv("EXEC_RECORD_FILE", record, 1);
	setenv("EXEC_EXPIRY_OFFSET", "3600", 1);
	setenv("PLUGIN_GREETING", "overridden-by-the-kubeconfig", 1);
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer exec-token-1");
	gen = a.generation;
	creds_auth_clear(&a);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer exec-token-1"); /* cached: not expired */
	creds_auth_clear(&a);
	CHECK_INT_EQ(creds_exec_runs(c), 1);
	CHECK_STR_EQ(read_file(count), "1\n");

	const char *rec = read_file(record);
	CHECK_STR_CONTAINS(rec, "args=--cluster test\n");
	CHECK_STR_CONTAINS(rec, "greeting=hello\n");
	CHECK_STR_CONTAINS(rec,
	                   "info={\"kind\":\"ExecCredential\",\"apiVersion\":"
	                   "\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":false,"
	                   "\"cluster\":{\"server\":\"https://api.example:6443\"");
	CHECK_STR_CONTAINS(rec, "\"certificate-authority-data\":\"LS0tLS1CRUdJTi");
	CHECK_STR_CONTAINS(rec, "stdin=notty");

	CHECK(creds_invalidate(c, gen));
	CHECK(creds_invalidate(c, gen)); /* a second 401 of the same generation: no second run */
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer exec-token-2");
	CHECK(creds_invalidate(c, gen)); /* stale generation: keeps exec-token-2 */
	creds_auth_clear(&a);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK_STR_EQ(a.authorization, "Bearer exec-token-2");
	creds_auth_clear(&a);
	CHECK_INT_EQ(creds_exec_runs(c), 2);
	creds_free(c);
	unsetenv("EXEC_RECORD_FILE");
	unsetenv("PLUGIN_GREETING");
}

TEST(creds_exec_plugin_reruns_after_expiry)
{
	struct exec_fixture f;
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;
	char count[512];

	exec_fixture(&f, "exec-token.sh", "client.authentication.k8s.io/v1beta1");
	snprintf(count, sizeof(count), "%s", tmp_path("count-expired"));
	unlink(count);
	setenv("EXEC_COUNT_FILE", count, 1);
	setenv("EXEC_EXPIRY_OFFSET", "-10", 1); /* every answer is already expired */
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	for (int i = 1; i <= 3; i++) {
		char want[64];

		snprintf(want, sizeof(want), "Bearer exec-token-%d", i);
		CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
		CHECK_STR_EQ(a.authorization, want);
		creds_auth_clear(&a);
	}
	CHECK_INT_EQ(creds_exec_runs(c), 3);
	creds_free(c);
}

static void *get_in_thread(void *arg)
{
	struct creds_auth a;
	struct k8s_error err;

	if (creds_get(arg, 0, &a, &err) == 0 && a.authorization &&
	    strcmp(a.authorization, "Bearer exec-token-1") == 0) {
		creds_auth_clear(&a);
		return arg;
	}
	creds_auth_clear(&a);
	return NULL;
}

TEST(creds_exec_plugin_runs_once_for_concurrent_requests)
{
	struct exec_fixture f;
	struct k8s_creds *c = NULL;
	struct k8s_error err;
	pthread_t t[4];
	char count[512];
	int ok = 0;

	exec_fixture(&f, "exec-token.sh", "client.authentication.k8s.io/v1");
	snprintf(count, sizeof(count), "%s", tmp_path("count-threads"));
	unlink(count);
	setenv("EXEC_COUNT_FILE", count, 1);
	setenv("EXEC_EXPIRY_OFFSET", "3600", 1);
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, get_in_thread, c);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(t[i], &r);
		ok += r != NULL;
	}
	CHECK_INT_EQ(ok, 4);
	CHECK_INT_EQ(creds_exec_runs(c), 1);
	creds_free(c);
	unsetenv("EXEC_COUNT_FILE");
}

TEST(creds_exec_plugin_with_client_certificate)
{
	struct exec_fixture f;
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;
	char cert[1024], key[1024];

	exec_fixture(&f, "exec-cert.sh", "client.authentication.k8s.io/v1");
	snprintf(cert, sizeof(cert), "%s", harness_fixture("kubeconfig/placeholder-client.pem"));
	snprintf(key, sizeof(key), "%s", harness_fixture("kubeconfig/placeholder-client-key.pem"));
	setenv("EXEC_CERT_FILE", cert, 1);
	setenv("EXEC_KEY_FILE", key, 1);
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), 0);
	CHECK(a.authorization == NULL);
	CHECK(a.cert_pem &&
	      strstr(a.cert_pem, "-----BEGIN CERTIFICATE-----\nUExBQ0VIT0xERVIgQ0xJRU5U"));
	CHECK(a.key_pem && strstr(a.key_pem, "-----BEGIN PRIVATE KEY-----\n"));
	creds_auth_clear(&a);
	creds_free(c);

	/* the same plugin under a v1beta1 config answers the wrong apiVersion */
	exec_fixture(&f, "exec-cert.sh", "client.authentication.k8s.io/v1beta1");
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), -EACCES);
	CHECK_STR_CONTAINS(err.message,
	                   "is configured for client.authentication.k8s.io/v1beta1 but "
	                   "answered with apiVersion client.authentication.k8s.io/v1");
	creds_free(c);
}

TEST(creds_exec_plugin_failures_are_readable)
{
	struct k8s_creds_options quick = {0, 300};
	struct exec_fixture f;
	struct k8s_creds *c = NULL;
	struct creds_auth a;
	struct k8s_error err;

	exec_fixture(&f, "exec-fail.sh", "client.authentication.k8s.io/v1");
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), -EACCES);
	CHECK_STR_CONTAINS(err.message,
	                   "exec-fail.sh failed (exit status 3): error: no valid login "
	                   "session; run login-tool first");
	CHECK(!strstr(err.message, "STDOUT-SECRET"));
	creds_free(c);

	exec_fixture(&f, "exec-slow.sh", "client.authentication.k8s.io/v1");
	CHECK_INT_EQ(creds_new(&f.cfg, &quick, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), -ETIMEDOUT);
	CHECK_STR_CONTAINS(err.message, "exec-slow.sh did not answer within 300 ms");
	creds_free(c);

	/* a run counts against the deadline of the request that needs it (start-up's,
	 * say): 20 s of exec_timeout made a 2 s try of start-up last 20 s */
	exec_fixture(&f, "exec-slow.sh", "client.authentication.k8s.io/v1");
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 300, &a, &err), -ETIMEDOUT);
	CHECK_STR_CONTAINS(err.message, "exec-slow.sh did not answer within 300 ms and was killed");
	creds_free(c);

	exec_fixture(&f, "exec-garbage.sh", "client.authentication.k8s.io/v1");
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), -EACCES);
	CHECK_STR_CONTAINS(err.message, "printed no ExecCredential JSON");
	creds_free(c);

	exec_fixture(&f, "no-such-plugin", "client.authentication.k8s.io/v1");
	f.exec.command = "arenafs-no-such-plugin";
	CHECK_INT_EQ(creds_new(&f.cfg, NULL, &c, &err), 0);
	CHECK_INT_EQ(creds_get(c, 0, &a, &err), -EACCES);
	/* glibc's posix_spawn reports the exec failure itself; under valgrind the child exits 127
	 */
	CHECK_STR_CONTAINS(err.message, "exec plugin arenafs-no-such-plugin");
	CHECK_STR_CONTAINS(err.message, "is it installed and on PATH?");
	creds_free(c);
}

__attribute__((destructor)) static void remove_tmpdir(void)
{
	char cmd[300];

	if (tmpdir[0] && strncmp(tmpdir, "/tmp/arenafs-creds-test-", 24) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
}
