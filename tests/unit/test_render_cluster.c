/* Tests render/cluster.c (context without secrets, health) and render/readme.c. */
#include "render/cluster.h"
#include "render/readme.h"
#include "tests/unit/harness.h"
#include "tests/unit/objects_fixture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

TEST(cluster_context_names_no_secret)
{
	struct k8s_exec_config exec = {0};
	struct k8s_config cfg = {0};
	char *s;

	cfg.source = "/home/u/.kube/config";
	cfg.context = "kind-dev";
	cfg.cluster = "kind-dev";
	cfg.user = "kind-admin";
	cfg.namespace = "team-a";
	cfg.server = "https://admin:s3cret@10.0.0.1:6443";
	cfg.token = "TOKEN-VALUE";
	cfg.client_key_pem = "-----BEGIN PRIVATE KEY-----";
	s = FX_RENDER(render_cluster_context(sb, &cfg));
	CHECK_STR_EQ(s, "Server:      https://10.0.0.1:6443\n"
	                "Context:     kind-dev\n"
	                "Cluster:     kind-dev\n"
	                "Namespace:   team-a\n"
	                "User:        kind-admin\n"
	                "Auth:        bearer token\n"
	                "TLSVerify:   true\n"
	                "Kubeconfig:  /home/u/.kube/config\n");
	CHECK(!strstr(s, "s3cret") && !strstr(s, "TOKEN") && !strstr(s, "PRIVATE"));
	free(s);
	/* An exec plugin: its command, never its arguments. */
	cfg.token = NULL;
	cfg.server = "https://k8s.example.com";
	cfg.insecure_skip_tls_verify = true;
	exec.command = "aws";
	exec.args = (char *[]){"--token=abc"};
	exec.n_args = 1;
	cfg.exec = &exec;
	s = FX_RENDER(render_cluster_context(sb, &cfg));
	CHECK_STR_CONTAINS(s, "Server:      https://k8s.example.com\n");
	CHECK_STR_CONTAINS(s, "Auth:        exec plugin (aws)\n");
	CHECK_STR_CONTAINS(s, "TLSVerify:   false\n");
	CHECK(!strstr(s, "abc"));
	free(s);
	/* Plain HTTP: nothing is verified, and the file says why rather than "true". */
	cfg.exec = NULL;
	cfg.insecure_skip_tls_verify = false;
	cfg.server = "http://127.0.0.1:8080";
	s = FX_RENDER(render_cluster_context(sb, &cfg));
	CHECK_STR_CONTAINS(s, "TLSVerify:   no TLS (http)\n");
	free(s);
	/* In-cluster: empty names stay empty, nothing is NULL-dereferenced. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.source = "in-cluster";
	cfg.token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
	s = FX_RENDER(render_cluster_context(sb, &cfg));
	CHECK_STR_CONTAINS(s, "Server:\nContext:\n");
	CHECK_STR_CONTAINS(s, "Auth:        token file\n");
	free(s);
}

TEST(cluster_health)
{
	struct cache_health h = {true, FX_T0, "", 0, "", false};
	char *s;

	s = FX_RENDER(render_cluster_health(sb, &h));
	CHECK_STR_EQ(s, "ok\n");
	free(s);
	h.connected = false;
	snprintf(h.last_error, sizeof(h.last_error),
	         "connect to 10.0.0.1:6443:\nconnection refused");
	s = FX_RENDER(render_cluster_health(sb, &h));
	CHECK_STR_EQ(s, "disconnected since 2026-12-02T10:00:00Z: connect to 10.0.0.1:6443: "
	                "connection refused\n");
	free(s);
	/* A reason filling the array without its NUL is cut at the array. */
	memset(h.last_error, 'x', sizeof(h.last_error));
	h.since = 0;
	s = FX_RENDER(render_cluster_health(sb, &h));
	CHECK(strncmp(s, "disconnected: xxx", 17) == 0);
	CHECK(strlen(s) < sizeof(h.last_error) + 20);
	CHECK(s[strlen(s) - 1] == '\n');
	free(s);
	h.last_error[0] = '\0';
	s = FX_RENDER(render_cluster_health(sb, &h));
	CHECK_STR_EQ(s, "disconnected: unknown reason\n");
	free(s);
	/* info's note: nothing while connected, one paragraph while not */
	h.connected = true;
	s = FX_RENDER(render_stale_note(sb, &h));
	CHECK_STR_EQ(s, "");
	free(s);
	h.connected = false;
	h.since = FX_T0;
	snprintf(h.last_error, sizeof(h.last_error), "connection refused");
	s = FX_RENDER(render_stale_note(sb, &h));
	CHECK_STR_EQ(s, "\nCluster: unreachable since 2026-12-02T10:00:00Z; this is the state last "
	                "seen then (connection refused)\n");
	free(s);
	/* objects left out: a second line, whatever the first */
	h.connected = true;
	h.skipped = 3;
	snprintf(h.skipped_last, sizeof(h.skipped_last),
	         "pods \"../../etc\" in default, a name no file can have");
	s = FX_RENDER(render_cluster_health(sb, &h));
	CHECK_STR_EQ(s, "ok\nnot shown: 3 objects unfit for the tree (the last: "
	                "pods \"../../etc\" in default, a name no file can have)\n");
	free(s);
}

TEST(cluster_health_says_whether_logs_are_being_kept)
{
	struct logs_kept_state k = {.budget = 256u << 20, .asked = 256u << 20,
				    .dir = "/c/arenafs/logs/0123"};
	char *s;

	/* kept as asked: nothing to say */
	s = FX_RENDER(render_logs_kept_line(sb, &k));
	CHECK_STR_EQ(s, "");
	free(s);
	/* a disk smaller than keep_logs: the budget it left */
	k.budget = 1835008;
	s = FX_RENDER(render_logs_kept_line(sb, &k));
	CHECK_STR_EQ(s, "logs: kept in /c/arenafs/logs/0123; at most 1.8 MiB, what the disk "
	                "holds, not keep_logs=256.0 MiB\n");
	free(s);
	/* a full disk: not being kept, since when, which log, why */
	k.err = ENOSPC;
	k.since = FX_T0;
	snprintf(k.log, sizeof(k.log), "default/mnist-worker-0");
	k.budget = 512u << 10;
	s = FX_RENDER(render_logs_kept_line(sb, &k));
	CHECK_STR_EQ(s, "logs: not being kept since 2026-12-02T10:00:00Z: the log of "
	                "default/mnist-worker-0 could not be written to /c/arenafs/logs/0123: "
	                "No space left on device; at most 512 KiB, what the disk holds, not "
	                "keep_logs=256.0 MiB\n");
	free(s);
}

TEST(readme_is_static_lists_its_places_and_explains_submit)
{
	static const struct readme_line lines[] = {
		{"cluster/context", "server, context, namespace, user (no secrets)"},
		{"jobs/NAME/tensorboard_url", "the TensorBoard URL, when the job has one"},
	};
	char *a = FX_RENDER(render_readme(sb, lines, 2)), *b = FX_RENDER(render_readme(sb, lines, 2));

	CHECK_STR_EQ(a, b);
	CHECK_STR_CONTAINS(a, "cp mnist.yaml submit/");
	CHECK_STR_CONTAINS(a, "type: tfjob");
	/* a column of paths, what each shows beside it, one space at least */
	CHECK_STR_CONTAINS(a, "\n  cluster/context          server, context, namespace, user (no "
			      "secrets)\n  jobs/NAME/tensorboard_url the TensorBoard URL");
	CHECK(strstr(a, "cluster/context") < strstr(a, "Submit a job"));
	CHECK(a[strlen(a) - 1] == '\n');
	free(a);
	free(b);
}
