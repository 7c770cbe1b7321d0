/*
 * Tests k8s/logs/logstream.c against the scripted server of testsrv.c: a stream is
 * "unanswered" (logstream_unanswered_ms > 0) until the server answers it, so that
 * fs/logs/logfile.c can tell an empty log from a server that has not answered (issue
 * 23, item 3); a stream from a file is answered at once. Following, resuming and
 * the probe's second connection are tested against kubesim
 * (tests/integration/test_k8s_logstream.py, test_tree_logs_unavailable.py): the
 * scripted server serves one connection at a time.
 */
#include "k8s/logs/logstream.h"
#include "tests/unit/harness.h"
#include "tests/unit/testsrv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Scripts list only the fields a response needs; the rest are zero on purpose. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define WAIT_MAX_MS 20000   /* catches a hang only: the machine may be loaded */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

TEST(logstream_is_unanswered_until_the_server_answers)
{
	struct testsrv srv;
	char server[64];
	struct k8s_config cfg = {0};
	struct k8s_client *client = NULL;
	struct logstream_registry *reg = NULL;
	struct logstream *ls = NULL;
	struct logstream_key key = {"default", "mnist-worker-0", "tensorflow", "", false, false, 0};
	struct k8s_error err;
	int64_t deadline;

	memset(&srv, 0, sizeof(srv));
	CHECK_INT_EQ(testsrv_start(&srv), 0);
	/* a server slow to answer the follow: nothing for 800 ms, then one line */
	srv.script[0] = (struct testsrv_response){
	    200, NULL, NULL, 800, {"2026-12-02T10:00:00.000000000Z hello\n", NULL}, 0, true};
	srv.n_script = 1;
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", srv.port);
	cfg.server = server;
	cfg.user = "tester";
	cfg.token = "static-token";
	CHECK_INT_EQ(k8s_client_new(&cfg, NULL, &client, &err), 0);
	CHECK_INT_EQ(logstream_registry_new(&reg), 0);
	CHECK_INT_EQ(logstream_open(reg, client, &key, NULL, NULL, &ls, &err), 0);

	/* nothing yet: an empty buffer that is not an empty log */
	CHECK(logstream_unanswered_ms(ls) > 0);
	CHECK_INT_EQ(logstream_size(ls), 0);
	CHECK(!logstream_done(ls));
	CHECK_INT_EQ(logstream_health(ls), LOGSTREAM_OK);

	deadline = now_ms() + WAIT_MAX_MS;
	while (logstream_size(ls) == 0 && now_ms() < deadline)
		usleep(10000);
	CHECK_INT_EQ(logstream_size(ls), 6);                 /* "hello\n", its timestamp cut */
	CHECK_INT_EQ(logstream_unanswered_ms(ls), 0);         /* answered, and stays so */

	logstream_release(ls, NULL, NULL);
	logstream_registry_free(reg);
	k8s_client_free(client);
	testsrv_stop(&srv);
}

TEST(logstream_from_a_file_is_answered)
{
	struct logstream *ls = NULL;
	FILE *f = tmpfile();
	int fd;

	CHECK(f != NULL);
	if (!f)
		return;
	fd = dup(fileno(f));
	fclose(f);
	CHECK_INT_EQ(logstream_from_file(fd, 0, 1764669600, &ls), 0);
	CHECK_INT_EQ(logstream_unanswered_ms(ls), 0);        /* a kept copy: the whole log */
	CHECK(logstream_done(ls));
	logstream_release(ls, NULL, NULL);
}

/* A follow stream has caught up once a line written after its request began has
 * come (fs/logs/logfile.c then ends `cat` there, however chatty the container). */
TEST(logstream_is_caught_up_at_a_line_written_after_the_request)
{
	struct testsrv srv;
	char server[64];
	struct k8s_config cfg = {0};
	struct k8s_client *client = NULL;
	struct logstream_registry *reg = NULL;
	struct logstream *ls = NULL;
	struct logstream_key key = {"default", "mnist-worker-0", "tensorflow", "", false, false, 0};
	struct k8s_error err;
	int64_t deadline;

	memset(&srv, 0, sizeof(srv));
	CHECK_INT_EQ(testsrv_start(&srv), 0);
	/* the log so far (old lines), then one written now (a date to come), then silence */
	srv.script[0] = (struct testsrv_response){
	    200, NULL, NULL, 0,
	    {"2020-01-01T00:00:00.000000000Z old 1\n", "2020-01-01T00:00:01.5Z old 2\n",
	     "2099-01-01T00:00:00Z now\n", NULL},
	    300, true};
	srv.n_script = 1;
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", srv.port);
	cfg.server = server;
	cfg.user = "tester";
	cfg.token = "static-token";
	CHECK_INT_EQ(k8s_client_new(&cfg, NULL, &client, &err), 0);
	CHECK_INT_EQ(logstream_registry_new(&reg), 0);
	CHECK_INT_EQ(logstream_open(reg, client, &key, NULL, NULL, &ls, &err), 0);
	CHECK(!logstream_caught_up(ls));

	deadline = now_ms() + WAIT_MAX_MS;
	while (logstream_size(ls) < 12 && now_ms() < deadline)
		usleep(10000);
	if (logstream_size(ls) == 12)            /* both old lines, the new one 300 ms away */
		CHECK(!logstream_caught_up(ls));
	while (logstream_size(ls) < 16 && now_ms() < deadline)
		usleep(10000);
	CHECK_INT_EQ(logstream_size(ls), 16);
	CHECK(logstream_caught_up(ls));
	CHECK(!logstream_done(ls));              /* still following */

	logstream_release(ls, NULL, NULL);
	logstream_registry_free(reg);
	k8s_client_free(client);
	testsrv_stop(&srv);
}
