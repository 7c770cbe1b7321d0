/*
 * Tests mount/kcreload.c: a kubeconfig rewritten while mounted with a new token for
 * the same server (as `aws eks update-kubeconfig` or a login script does) is taken
 * by the client without a remount: the next request presents the new token. Against
 * the scripted server of testsrv.c; the kubeconfig in a directory of its own. The
 * thread looks every 2 s: the test waits for the request that shows the new token,
 * at most WAIT_MAX_MS (a hang).
 */
#include "mount/kcreload.h"
#include "k8s/base/timefmt.h"
#include "tests/unit/harness.h"
#include "tests/unit/testsrv.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define WAIT_MAX_MS 20000

/* Writes a kubeconfig of one context at server with token, whole (a rename). */
static void write_kubeconfig(const char *path, const char *server, const char *token)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f,
		"apiVersion: v1\nkind: Config\ncurrent-context: test\n"
		"clusters:\n- name: test\n  cluster:\n    server: %s\n"
		"users:\n- name: tester\n  user:\n    token: %s\n"
		"contexts:\n- name: test\n  context:\n    cluster: test\n    user: tester\n",
		server, token);
	fclose(f);
	CHECK_INT_EQ(rename(tmp, path), 0);
}

TEST(mount_kcreload_takes_a_new_token_for_the_same_server)
{
	struct testsrv srv;
	char dir[] = "/tmp/arenafs-kcreload-XXXXXX", path[512];
	struct k8s_config_options opts = {path, NULL, NULL};
	struct k8s_config *cfg = NULL;
	struct k8s_client *client = NULL;
	struct kc_reload *r = NULL;
	struct k8s_error err;
	int64_t deadline;
	bool fresh = false;
	int i;

	CHECK_INT_EQ(testsrv_start(&srv), 0);
	for (i = 0; i < TESTSRV_MAX_SCRIPT; i++)
		srv.script[i] = (struct testsrv_response){200, "Content-Type: application/json\r\n",
							 "{}"};
	srv.n_script = TESTSRV_MAX_SCRIPT;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/config", dir);
	write_kubeconfig(path, srv.url, "old-token");
	CHECK_INT_EQ(kubeconfig_load(&opts, &cfg, &err), 0);
	CHECK_INT_EQ(k8s_client_new(cfg, NULL, &client, &err), 0);
	CHECK_INT_EQ(kc_reload_start(client, &opts, cfg, &r), 0);

	write_kubeconfig(path, srv.url, "the-new-token");
	/* one request a second until one presents the new token */
	deadline = time_monotonic_ms() + WAIT_MAX_MS;
	for (i = 0; i < TESTSRV_MAX_SCRIPT && !fresh && time_monotonic_ms() < deadline; i++) {
		json_t *doc = NULL;

		CHECK_INT_EQ(k8s_get_json(client, "/version", &doc, &err), 0);
		json_decref(doc);
		fresh = strstr(srv.seen[i], "Bearer the-new-token") != NULL;
		if (i == 0)
			CHECK(fresh || strstr(srv.seen[0], "Bearer old-token") != NULL);
		if (!fresh)
			sleep(1);
	}
	CHECK(fresh);

	kc_reload_stop(r);
	k8s_client_free(client);
	kc_reload_free(r);
	kubeconfig_free(cfg);
	testsrv_stop(&srv);
	unlink(path);
	rmdir(dir);
}
