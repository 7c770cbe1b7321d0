/*
 * Tests k8s/http/client.c and k8s/http/transport.c against the scripted server of
 * testsrv.c: headers, connection reuse, retries and their limits, Status
 * errors, 401 → exec plugin re-run, deadlines, streams, cancellation, idle
 * deadline, tls-server-name routing. TLS itself is tested against kubesim
 * (tests/integration/test_k8s_client.py).
 */
#include "k8s/http/client.h"
#include "tests/unit/harness.h"
#include "tests/unit/testsrv.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Scripts list only the fields a response needs; the rest are zero on purpose. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

static const char NOT_FOUND[] = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                                "\"message\":\"pods \\\"x\\\" not found\",\"reason\":\"NotFound\","
                                "\"code\":404}";
static const char UNAVAILABLE[] =
    "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
    "\"etcd is busy\",\"reason\":\"ServiceUnavailable\",\"code\":503}";
static const char INTERNAL_ERROR[] = "{\"kind\":\"Status\",\"code\":500,\"reason\":"
                                     "\"InternalError\",\"message\":\"boom\"}";
static const char UNAUTHORIZED[] = "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
                                   "\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";

struct fixture {
	struct testsrv srv;
	char server[64];
	struct k8s_config cfg;
	struct k8s_client *client;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool fixture_start(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	if (testsrv_start(&f->srv) != 0)
		return false;
	snprintf(f->server, sizeof(f->server), "http://127.0.0.1:%d", f->srv.port);
	f->cfg.server = f->server;
	f->cfg.user = "tester";
	f->cfg.token = "static-token";
	return true;
}

static bool fixture_client(struct fixture *f, const struct k8s_client_options *opts)
{
	struct k8s_error err;

	if (k8s_client_new(&f->cfg, opts, &f->client, &err) != 0) {
		fprintf(stderr, "  k8s_client_new: %s\n", err.message);
		return false;
	}
	return true;
}

static void fixture_stop(struct fixture *f)
{
	k8s_client_free(f->client);
	testsrv_stop(&f->srv);
}

#define SCRIPT(f, ...)                                                                             \
	do {                                                                                       \
		struct testsrv_response s_[] = {__VA_ARGS__};                                      \
		memcpy((f)->srv.script, s_, sizeof(s_));                                           \
		(f)->srv.n_script = (int)(sizeof(s_) / sizeof(s_[0]));                             \
	} while (0)

TEST(client_get_sends_headers_and_reuses_the_connection)
{
	struct fixture f;
	struct k8s_response r;
	struct k8s_client_stats st;
	struct k8s_error err;
	json_t *j = NULL;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {200, NULL, "{\"kind\":\"PodList\",\"items\":[]}"}, {200, NULL, "{\"a\":1}"});
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods?limit=500", NULL, NULL, &r, &err),
	             0);
	CHECK_INT_EQ(r.status, 200);
	CHECK_STR_EQ(r.body, "{\"kind\":\"PodList\",\"items\":[]}");
	k8s_response_free(&r);
	CHECK_INT_EQ(k8s_get_json(f.client, "/api/v1/nodes", &j, &err), 0);
	CHECK_INT_EQ(json_integer_value(json_object_get(j, "a")), 1);
	json_decref(j);
	CHECK_STR_CONTAINS(f.srv.seen[0], "GET /api/v1/pods?limit=500 HTTP/1.1\r\n");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\r\nUser-Agent: arenafs/");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\r\nAuthorization: Bearer static-token\r\n");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\r\nAccept: application/json\r\n");
	CHECK_INT_EQ(atomic_load(&f.srv.connections), 1);
	k8s_client_get_stats(f.client, &st);
	CHECK_INT_EQ(st.requests, 2);
	CHECK_INT_EQ(st.connections, 1);
	CHECK_INT_EQ(st.last_http_version, 1);
	fixture_stop(&f);
}

TEST(client_status_errors_keep_the_servers_message)
{
	struct fixture f;
	struct k8s_response r;
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {404, NULL, NOT_FOUND});
	CHECK_INT_EQ(
	    k8s_request(f.client, "GET", "/api/v1/namespaces/default/pods/x", NULL, NULL, &r, &err),
	    -ENOENT);
	CHECK_INT_EQ(err.code, 404);
	CHECK_STR_EQ(err.message, "pods \"x\" not found");
	CHECK(r.body == NULL);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 1); /* a 404 is not retried */
	fixture_stop(&f);
}

TEST(client_retries_503_and_honours_retry_after)
{
	struct fixture f;
	struct k8s_response r;
	struct k8s_client_stats st;
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {503, "Retry-After: 1\r\n", UNAVAILABLE}, {429, NULL, "{}"}, {200, NULL, "{}"});
	int64_t t0 = now_ms();
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err), 0);
	CHECK(now_ms() - t0 >= 1000); /* the server asked for a second's pause */
	k8s_response_free(&r);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 3);
	k8s_client_get_stats(f.client, &st);
	CHECK_INT_EQ(st.retries, 2);
	fixture_stop(&f);
}

/* client-go retries a GET on 500, 502 and 504 (the server or a proxy failed and a read
 * is safe to repeat), whatever the body: 502 here is a proxy's page, not a Status. 501
 * Not Implemented says the server will never do it: asking again cannot help. */
TEST(client_get_retries_500_502_504_but_not_501)
{
	struct fixture f;
	struct k8s_response r;
	struct k8s_client_stats st;
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {500, NULL, INTERNAL_ERROR},
	       {502, "Content-Type: text/html\r\n", "<html>Bad Gateway</html>"},
	       {504, NULL,
	        "{\"kind\":\"Status\",\"code\":504,\"reason\":\"Timeout\","
	        "\"message\":\"the server was unable to return a response in the time allotted\"}"},
	       {200, NULL, "{\"kind\":\"PodList\",\"items\":[]}"},
	       {501, NULL,
	        "{\"kind\":\"Status\",\"code\":501,\"reason\":\"NotImplemented\","
	        "\"message\":\"not implemented\"}"},
	       {200, NULL, "{}"});
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err), 0);
	CHECK_INT_EQ(r.status, 200);
	k8s_response_free(&r);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 4);
	for (int i = 0; i < 4; i++)
		CHECK_STR_CONTAINS(f.srv.seen[i], "GET /api/v1/pods HTTP/1.1\r\n");
	k8s_client_get_stats(f.client, &st);
	CHECK_INT_EQ(st.retries, 3);

	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/nodes", NULL, NULL, &r, &err), -EIO);
	CHECK_INT_EQ(err.code, 501);
	CHECK_STR_EQ(err.message, "not implemented");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 5);
	k8s_client_get_stats(f.client, &st);
	CHECK_INT_EQ(st.retries, 3);
	fixture_stop(&f);
}

TEST(client_post_is_not_retried_when_the_server_may_have_acted)
{
	struct fixture f;
	struct k8s_response r;
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {500, NULL, INTERNAL_ERROR}, {503, NULL, UNAVAILABLE},
	       {201, NULL, "{\"created\":true}"});
	CHECK_INT_EQ(
	    k8s_request(f.client, "POST", "/api/v1/namespaces/default/pods", NULL, "{}", &r, &err),
	    -EIO);
	CHECK_STR_EQ(err.message, "boom");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 1);
	CHECK_STR_CONTAINS(f.srv.seen[0], "POST /api/v1/namespaces/default/pods HTTP/1.1\r\n");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\r\nContent-Type: application/json\r\n");
	CHECK_STR_CONTAINS(f.srv.seen[0], "\r\n\r\n{}");
	/* 503: the server did not act; retried */
	CHECK_INT_EQ(
	    k8s_request(f.client, "POST", "/api/v1/namespaces/default/pods", NULL, "{}", &r, &err),
	    0);
	CHECK_INT_EQ(r.status, 201);
	k8s_response_free(&r);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 3);
	fixture_stop(&f);
}

TEST(client_retries_stop_at_the_deadline)
{
	struct k8s_client_options opts = {1000, 1500, 0, 0, 0};
	struct fixture f;
	struct k8s_response r;
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, &opts));
	SCRIPT(&f, {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE},
	       {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE},
	       {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE},
	       {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE}, {503, NULL, UNAVAILABLE});
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err), -EIO);
	CHECK_STR_EQ(err.message, "etcd is busy");
	CHECK_STR_EQ(err.reason, "ServiceUnavailable");
	CHECK(atomic_load(&f.srv.requests) >= 2);
	CHECK(atomic_load(&f.srv.requests) < 12);
	fixture_stop(&f);
}

TEST(client_deadline_gives_etimedout)
{
	struct k8s_client_options opts = {1000, 300, 0, 0, 0};
	struct fixture f;
	struct k8s_response r;
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, &opts));
	SCRIPT(&f, {200, NULL, "{}", 3000});
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err),
	             -ETIMEDOUT);
	CHECK_STR_CONTAINS(err.message, "cannot reach http://127.0.0.1:");
	CHECK_STR_CONTAINS(err.message, ": no answer within ");
	fixture_stop(&f);
}

TEST(client_connection_refused_is_eio)
{
	struct k8s_client_options opts = {1000, 800, 0, 0, 0};
	struct fixture f;
	struct k8s_response r;
	struct k8s_error err;
	char want[128];

	CHECK(fixture_start(&f));
	testsrv_stop(&f.srv); /* nothing listens on the port any more */
	CHECK(fixture_client(&f, &opts));
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err), -EIO);
	snprintf(want, sizeof(want), "cannot reach %s: Connection refused", f.server);
	CHECK_STR_EQ(err.message, want);
	k8s_client_free(f.client);
}

TEST(client_401_reruns_the_exec_plugin_once)
{
	struct fixture f;
	struct k8s_exec_config ex = {0};
	struct k8s_response r;
	struct k8s_error err;
	char cmd[1024], count[] = "/tmp/arenafs-client-test-count-XXXXXX";
	int fd = mkstemp(count);

	if (fd >= 0)
		close(fd);
	unlink(count);
	setenv("EXEC_COUNT_FILE", count, 1);
	setenv("EXEC_EXPIRY_OFFSET", "3600", 1);
	snprintf(cmd, sizeof(cmd), "%s", harness_fixture("kubeconfig/plugins/exec-token.sh"));
	ex.api_version = "client.authentication.k8s.io/v1";
	ex.command = cmd;
	CHECK(fixture_start(&f));
	f.cfg.token = NULL;
	f.cfg.exec = &ex;
	CHECK(fixture_client(&f, NULL));
	SCRIPT(&f, {401, NULL, UNAUTHORIZED}, {200, NULL, "{}"}, {401, NULL, UNAUTHORIZED},
	       {401, NULL, UNAUTHORIZED});
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err), 0);
	k8s_response_free(&r);
	CHECK_STR_CONTAINS(f.srv.seen[0], "Authorization: Bearer exec-token-1\r\n");
	CHECK_STR_CONTAINS(f.srv.seen[1], "Authorization: Bearer exec-token-2\r\n");
	/* a second 401 in a row is the answer: EACCES, after one more run */
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/pods", NULL, NULL, &r, &err), -EACCES);
	CHECK_STR_EQ(err.message, "the API server rejected the credentials of user \"tester\": "
	                          "Unauthorized");
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 4);
	CHECK_STR_CONTAINS(f.srv.seen[3], "Authorization: Bearer exec-token-3\r\n");
	fixture_stop(&f);
	unlink(count);
	unsetenv("EXEC_COUNT_FILE");
}

TEST(client_tls_server_name_routes_to_the_configured_server)
{
	struct fixture f;
	struct k8s_response r;
	struct k8s_error err;
	char host[64];

	CHECK(fixture_start(&f));
	f.cfg.tls_server_name = "kubernetes.invalid";
	CHECK(fixture_client(&f, NULL));
	SCRIPT(&f, {200, NULL, "{}"});
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/version", NULL, NULL, &r, &err), 0);
	k8s_response_free(&r);
	snprintf(host, sizeof(host), "\r\nHost: 127.0.0.1:%d\r\n", f.srv.port);
	CHECK_STR_CONTAINS(f.srv.seen[0], host);
	fixture_stop(&f);
}

struct collected {
	char data[256];
	size_t len;
	int calls;
	int stop_after; /* return non-zero on this call; 0: never */
};

static int collect(void *arg, const char *data, size_t len)
{
	struct collected *c = arg;

	if (c->len + len < sizeof(c->data)) {
		memcpy(c->data + c->len, data, len);
		c->len += len;
	}
	return ++c->calls == c->stop_after;
}

TEST(client_stream_delivers_chunks_and_error_statuses)
{
	struct fixture f;
	struct collected got = {0};
	int status = -1;
	struct k8s_stream_request req = {
	    "/api/v1/pods?watch=1", NULL, collect, &got, NULL, &status};
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f,
	       {200, NULL, NULL, 0, {"{\"type\":\"ADD", "ED\"}\n", "{\"type\":\"DELETED\"}\n"}, 20},
	       {403, NULL,
	        "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\",\"message\":"
	        "\"pods is forbidden\"}"},
	       {410, NULL,
	        "{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":"
	        "\"too old resource version: 7 (1200)\"}"},
	       {200, NULL, NULL, 0, {"{\"type\":\"ADDED\"}\n"}});
	CHECK_INT_EQ(k8s_stream_run(f.client, &req, &err), 0);
	CHECK_INT_EQ(status, 200);
	got.data[got.len] = '\0';
	CHECK_STR_EQ(got.data, "{\"type\":\"ADDED\"}\n{\"type\":\"DELETED\"}\n");
	memset(&got, 0, sizeof(got));
	CHECK_INT_EQ(k8s_stream_run(f.client, &req, &err), -EACCES);
	CHECK_INT_EQ(status, 403);
	CHECK_STR_EQ(err.message, "pods is forbidden");
	CHECK_INT_EQ(got.calls, 0); /* an error body is not data */
	/* A watch answered HTTP 410 (the API server's watch cache refuses a resourceVersion
	 * it no longer holds so, before the stream starts) is ESTALE, which the reflector
	 * relists on; like every stream error it is not retried by the client. */
	CHECK_INT_EQ(k8s_stream_run(f.client, &req, &err), -ESTALE);
	CHECK_INT_EQ(status, 410);
	CHECK_STR_EQ(err.reason, "Expired");
	CHECK_STR_EQ(err.message, "too old resource version: 7 (1200)");
	CHECK_INT_EQ(got.calls, 0);
	CHECK_INT_EQ(atomic_load(&f.srv.requests), 3);
	fixture_stop(&f);
}

static void *set_cancel_later(void *arg)
{
	usleep(200 * 1000);
	atomic_store((atomic_bool *)arg, true);
	return NULL;
}

TEST(client_stream_cancel_takes_effect_promptly)
{
	struct fixture f;
	struct collected got = {0};
	atomic_bool cancel = false;
	struct k8s_stream_request req = {
	    "/api/v1/pods?watch=1", NULL, collect, &got, &cancel, NULL};
	struct k8s_error err;
	pthread_t t;
	int64_t t0, elapsed;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {200, NULL, NULL, 0, {"{}\n"}, 0, true});
	pthread_create(&t, NULL, set_cancel_later, &cancel);
	t0 = now_ms();
	CHECK_INT_EQ(k8s_stream_run(f.client, &req, &err), -ECANCELED);
	elapsed = now_ms() - t0;
	pthread_join(t, NULL);
	CHECK_INT_EQ(got.len, 3);
	/* the flag is polled every TRANSPORT_TICK_MS; this bound only catches a hang */
	CHECK(elapsed < 5000);
	fprintf(stderr, "  (stream cancelled %lld ms after start, flag set at 200 ms)\n",
	        (long long)elapsed);
	fixture_stop(&f);
}

TEST(client_stream_callback_can_stop_it)
{
	struct fixture f;
	struct collected got = {.stop_after = 2};
	struct k8s_stream_request req = {"/api/v1/pods?watch=1", NULL, collect, &got, NULL, NULL};
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, NULL));
	SCRIPT(&f, {200, NULL, NULL, 0, {"a", "b", "c"}, 20, true});
	CHECK_INT_EQ(k8s_stream_run(f.client, &req, &err), -ECANCELED);
	CHECK_INT_EQ(got.calls, 2);
	fixture_stop(&f);
}

TEST(client_stream_idle_deadline)
{
	struct k8s_client_options opts = {1000, 1000, 300, 0, 0};
	struct fixture f;
	struct collected got = {0};
	struct k8s_stream_request req = {"/api/v1/pods?watch=1", NULL, collect, &got, NULL, NULL};
	struct k8s_error err;

	CHECK(fixture_start(&f) && fixture_client(&f, &opts));
	SCRIPT(&f, {200, NULL, NULL, 0, {"{}\n"}, 0, true});
	CHECK_INT_EQ(k8s_stream_run(f.client, &req, &err), -ETIMEDOUT);
	CHECK_STR_EQ(err.message, "/api/v1/pods?watch=1: nothing received for 300 ms");
	fixture_stop(&f);
}

struct parallel {
	struct k8s_client *client;
	atomic_bool *cancel;
	int rc;
	struct collected got;
};

static void *run_stream(void *arg)
{
	struct parallel *p = arg;
	struct k8s_stream_request req = {
	    "/api/v1/pods?watch=1", NULL, collect, &p->got, p->cancel, NULL};
	struct k8s_error err;

	p->rc = k8s_stream_run(p->client, &req, &err);
	return NULL;
}

TEST(client_requests_proceed_while_streams_are_open)
{
	struct k8s_client_options opts = {1000, 5000, 0, 0, 0};
	struct fixture f;
	atomic_bool cancel = false;
	struct parallel p = {0};
	struct k8s_response r;
	struct k8s_error err;
	pthread_t t;

	CHECK(fixture_start(&f) && fixture_client(&f, &opts));
	/* the test server answers one connection at a time: the GET must wait for the stream's
	 * connection to close, so the stream is cancelled first */
	SCRIPT(&f, {200, NULL, NULL, 0, {"{}\n"}, 0, true}, {200, NULL, "{\"ok\":1}"});
	p.client = f.client;
	p.cancel = &cancel;
	pthread_create(&t, NULL, run_stream, &p);
	while (atomic_load(&f.srv.requests) < 1)
		usleep(10 * 1000);
	atomic_store(&cancel, true);
	pthread_join(t, NULL);
	CHECK_INT_EQ(p.rc, -ECANCELED);
	CHECK_INT_EQ(k8s_request(f.client, "GET", "/api/v1/nodes", NULL, NULL, &r, &err), 0);
	CHECK_STR_EQ(r.body, "{\"ok\":1}");
	k8s_response_free(&r);
	fixture_stop(&f);
}
