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

/* One follow stream of mnist-worker-0's log from the scripted server answering
 * script (one response). */
struct follow {
	struct testsrv srv;
	char server[64];
	struct k8s_client *client;
	struct logstream_registry *reg;
	struct logstream *ls;
};

static void follow_start(struct follow *f, struct testsrv_response script)
{
	struct k8s_config cfg = {0};
	struct logstream_key key = {"default", "mnist-worker-0", "tensorflow", "", false, false, 0};
	struct k8s_error err;

	memset(f, 0, sizeof(*f));
	CHECK_INT_EQ(testsrv_start(&f->srv), 0);
	f->srv.script[0] = script;
	f->srv.n_script = 1;
	snprintf(f->server, sizeof(f->server), "http://127.0.0.1:%d", f->srv.port);
	cfg.server = f->server;
	cfg.user = "tester";
	cfg.token = "static-token";
	CHECK_INT_EQ(k8s_client_new(&cfg, NULL, &f->client, &err), 0);
	CHECK_INT_EQ(logstream_registry_new(&f->reg), 0);
	CHECK_INT_EQ(logstream_open(f->reg, f->client, &key, NULL, NULL, &f->ls, &err), 0);
}

static void follow_stop(struct follow *f)
{
	logstream_release(f->ls, NULL, NULL);
	logstream_registry_free(f->reg);
	k8s_client_free(f->client);
	testsrv_stop(&f->srv);
}

/* Waits (WAIT_MAX_MS at most: a hang) for the stream to hold at least size bytes. */
static void wait_size(struct logstream *ls, uint64_t size)
{
	int64_t deadline = now_ms() + WAIT_MAX_MS;

	while (logstream_size(ls) < size && now_ms() < deadline)
		usleep(10000);
}

TEST(logstream_is_unanswered_until_the_server_answers)
{
	struct follow f;

	/* a server slow to answer the follow: nothing for 800 ms, then one line */
	follow_start(&f, (struct testsrv_response){
	    200, NULL, NULL, 800, {"2026-12-02T10:00:00.000000000Z hello\n", NULL}, 0, true});

	/* nothing yet: an empty buffer that is not an empty log */
	CHECK(logstream_unanswered_ms(f.ls) > 0);
	CHECK_INT_EQ(logstream_size(f.ls), 0);
	CHECK(!logstream_done(f.ls));
	CHECK_INT_EQ(logstream_health(f.ls), LOGSTREAM_OK);

	wait_size(f.ls, 1);
	CHECK_INT_EQ(logstream_size(f.ls), 6);                 /* "hello\n", its timestamp cut */
	CHECK_INT_EQ(logstream_unanswered_ms(f.ls), 0);         /* answered, and stays so */
	follow_stop(&f);
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
	struct follow f;

	/* the log so far (old lines), then one written now (a date to come), then silence */
	follow_start(&f, (struct testsrv_response){
	    200, NULL, NULL, 0,
	    {"2020-01-01T00:00:00.000000000Z old 1\n", "2020-01-01T00:00:01.5Z old 2\n",
	     "2099-01-01T00:00:00Z now\n", NULL},
	    300, true});
	CHECK(!logstream_caught_up(f.ls));
	wait_size(f.ls, 12);
	if (logstream_size(f.ls) == 12)            /* both old lines, the new one 300 ms away */
		CHECK(!logstream_caught_up(f.ls));
	wait_size(f.ls, 16);
	CHECK_INT_EQ(logstream_size(f.ls), 16);
	CHECK(logstream_caught_up(f.ls));
	CHECK(!logstream_done(f.ls));              /* still following */
	follow_stop(&f);
}
