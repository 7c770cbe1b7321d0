/* The scripted HTTP test server (see testsrv.h). */
#include "tests/unit/testsrv.h"
#include "k8s/http/client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static bool send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Reads one request (headers and Content-Length body) into buf. false: the client went. */
static bool read_request(struct testsrv *s, int fd, char *buf, size_t size)
{
	size_t len = 0;
	char *end = NULL;
	long clen = 0;

	while (!end) {
		struct pollfd p = {fd, POLLIN, 0};
		ssize_t n;

		if (atomic_load(&s->stop))
			return false;
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recv(fd, buf + len, size - 1 - len, 0);
		if (n <= 0)
			return false;
		len += (size_t)n;
		buf[len] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (len >= size - 1)
			break;
	}
	if (!end)
		return false;
	{
		const char *cl = strcasestr(buf, "\r\nContent-Length:");

		if (cl)
			clen = strtol(cl + 17, NULL, 10);
	}
	while ((long)(len - (size_t)(end + 4 - buf)) < clen && len < size - 1) {
		ssize_t n = recv(fd, buf + len, size - 1 - len, 0);

		if (n <= 0)
			return false;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return true;
}

/* Waits until the client closes (or the server stops). */
static void wait_for_close(struct testsrv *s, int fd)
{
	char buf[256];

	while (!atomic_load(&s->stop)) {
		struct pollfd p = {fd, POLLIN, 0};

		if (poll(&p, 1, 50) > 0 && recv(fd, buf, sizeof(buf), 0) <= 0)
			return;
	}
}

static bool answer(struct testsrv *s, int fd, const struct testsrv_response *r)
{
	char head[1024];
	const char *body = r->body ? r->body : "";

	if (r->delay_ms)
		msleep(r->delay_ms);
	if (r->chunks[0] || r->hang) {
		snprintf(head, sizeof(head),
		         "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%sTransfer-Encoding: "
		         "chunked\r\n\r\n",
		         r->status, r->headers ? r->headers : "");
		if (!send_all(fd, head, strlen(head)))
			return false;
		for (int i = 0; i < TESTSRV_MAX_CHUNKS && r->chunks[i]; i++) {
			char sz[32];

			if (i && r->chunk_delay_ms)
				msleep(r->chunk_delay_ms);
			snprintf(sz, sizeof(sz), "%zx\r\n", strlen(r->chunks[i]));
			if (!send_all(fd, sz, strlen(sz)) ||
			    !send_all(fd, r->chunks[i], strlen(r->chunks[i])) ||
			    !send_all(fd, "\r\n", 2))
				return false;
		}
		if (r->hang) {
			wait_for_close(s, fd);
			return false;
		}
		return send_all(fd, "0\r\n\r\n", 5) && !r->close;
	}
	snprintf(head, sizeof(head),
	         "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%s"
	         "Content-Length: %zu\r\n%s\r\n",
	         r->status, r->headers ? r->headers : "", strlen(body),
	         r->close ? "Connection: close\r\n" : "");
	return send_all(fd, head, strlen(head)) && send_all(fd, body, strlen(body)) && !r->close;
}

static void *serve(void *arg)
{
	struct testsrv *s = arg;

	while (!atomic_load(&s->stop)) {
		struct pollfd p = {s->fd, POLLIN, 0};
		int c;

		if (poll(&p, 1, 50) <= 0)
			continue;
		c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		atomic_fetch_add(&s->connections, 1);
		for (;;) {
			char req[4096];
			int i;

			if (!read_request(s, c, req, sizeof(req)))
				break;
			i = atomic_fetch_add(&s->requests, 1);
			if (i < TESTSRV_MAX_SCRIPT)
				memcpy(s->seen[i], req, sizeof(s->seen[i]) - 1);
			if (i >= s->n_script) {
				static const struct testsrv_response none = {
				    .status = 500, .body = "script exhausted"};

				answer(s, c, &none);
				break;
			}
			if (!answer(s, c, &s->script[i]))
				break;
		}
		close(c);
	}
	return NULL;
}

int testsrv_start(struct testsrv *s)
{
	struct sockaddr_in a = {0};
	socklen_t alen = sizeof(a);
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s->fd, 16) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&a, &alen) < 0) {
		close(s->fd);
		return -errno;
	}
	s->port = ntohs(a.sin_port);
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", s->port);
	if (pthread_create(&s->thread, NULL, serve, s) != 0) {
		close(s->fd);
		return -EAGAIN;
	}
	return 0;
}

void testsrv_stop(struct testsrv *s)
{
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	close(s->fd);
}

int testsrv_client(struct testsrv *s, struct k8s_client **out)
{
	struct k8s_error err;

	memset(&s->cfg, 0, sizeof(s->cfg));
	s->cfg.server = s->url;
	s->cfg.user = "tester";
	s->cfg.token = "static-token";
	return k8s_client_new(&s->cfg, NULL, out, &err);
}
