/*
 * Exec credential plugins (see execcred.h), as client-go's exec authenticator
 * runs them: environment = ours + the kubeconfig's env + KUBERNETES_EXEC_INFO;
 * output must be an ExecCredential of the configured apiVersion with a token or
 * a certificate and key; a failing plugin's stderr goes into the error (kubectl
 * shows it on the terminal; a daemon has no terminal), its stdout never does.
 */
#include "k8s/auth/execcred.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "k8s/base/base64.h"
#include "k8s/auth/secret.h"
#include "k8s/base/strbuf.h"
#include "k8s/base/timefmt.h"

#define EXEC_STDOUT_MAX (1 << 20) /* an ExecCredential is small; more is a broken plugin */
#define EXEC_STDERR_MAX 1000      /* how much of stderr an error message carries */
#define EXEC_RUNNING_MAX 8        /* plugins running at once that a signal can kill */

extern char **environ;

/* The process groups of the plugins running now (0: a free slot), for
 * execcred_kill_running(): lock-free, since a signal handler reads them. A plugin
 * beyond EXEC_RUNNING_MAX at once still runs and is killed at its deadline. */
static atomic_int running[EXEC_RUNNING_MAX];

static void running_add(pid_t pgid)
{
	for (int i = 0; i < EXEC_RUNNING_MAX; i++) {
		int free_slot = 0;

		if (atomic_compare_exchange_strong(&running[i], &free_slot, (int)pgid))
			return;
	}
}

/* Before the plugin is reaped: until then its pid, the group's id, is not reused. */
static void running_remove(pid_t pgid)
{
	for (int i = 0; i < EXEC_RUNNING_MAX; i++) {
		int mine = (int)pgid;

		atomic_compare_exchange_strong(&running[i], &mine, 0);
	}
}

void execcred_kill_running(void)
{
	for (int i = 0; i < EXEC_RUNNING_MAX; i++) {
		int pgid = atomic_load(&running[i]);

		if (pgid > 0)
			kill(-pgid, SIGKILL);
	}
}

/* Kills the plugin (pid > 0) and whatever it started, and reaps it. */
static void kill_plugin(pid_t pid)
{
	kill(-pid, SIGKILL);
	running_remove(pid);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* KUBERNETES_EXEC_INFO: the ExecCredential spec, with the cluster when asked for;
 * NULL on ENOMEM (never a spec with part of the cluster missing). */
static char *exec_info(const struct k8s_config *cfg)
{
	json_t *spec = json_pack("{s:b}", "interactive", 0);
	json_t *root = json_pack("{s:s, s:s, s:o}", "kind", "ExecCredential", "apiVersion",
	                         cfg->exec->api_version, "spec", spec);
	char *text = NULL;
	int rc = root ? 0 : -1;

	if (root && cfg->exec->provide_cluster_info) {
		json_t *cl = json_pack("{s:s, s:b}", "server", cfg->server,
		                       "insecure-skip-tls-verify", cfg->insecure_skip_tls_verify);
		char *b64 = NULL;

		rc = cl ? 0 : -1;
		if (cl && cfg->tls_server_name)
			rc |= json_object_set_new(cl, "tls-server-name",
			                          json_string(cfg->tls_server_name));
		if (cl && cfg->proxy_url)
			rc |= json_object_set_new(cl, "proxy-url", json_string(cfg->proxy_url));
		if (cl && cfg->ca_pem) {
			b64 = k8s_base64_encode(cfg->ca_pem, cfg->ca_pem_len);
			rc |= b64 ? json_object_set_new(cl, "certificate-authority-data",
			                                json_string(b64))
			          : -1;
			free(b64);
		}
		rc |= json_object_set_new(spec, "cluster", cl);   /* takes cl, even on failure */
	}
	if (rc == 0)
		text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}

/* The child's environment: ours, minus what the plugin config overrides, plus that. */
static char **exec_env(const struct k8s_config *cfg, const char *info, size_t *n_borrowed)
{
	const struct k8s_exec_config *ex = cfg->exec;
	size_t n = 0, o = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + ex->n_env + 2, sizeof(char *));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t klen = strcspn(environ[i], "=");
		bool overridden = strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0;

		for (size_t j = 0; j < ex->n_env && !overridden; j++)
			overridden = strlen(ex->env[j].name) == klen &&
			             strncmp(environ[i], ex->env[j].name, klen) == 0;
		if (!overridden)
			env[o++] = environ[i]; /* borrowed: only the entries after these are ours */
	}
	*n_borrowed = o;
	for (size_t j = 0; j < ex->n_env; j++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_printf(&sb, "%s=%s", ex->env[j].name, ex->env[j].value);
		env[o++] = strbuf_take(&sb);
	}
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_printf(&sb, "KUBERNETES_EXEC_INFO=%s", info);
		env[o++] = strbuf_take(&sb);
	}
	return env;
}

static void exec_env_free(char **env, size_t n_borrowed)
{
	if (!env)
		return;
	for (size_t i = n_borrowed; env[i]; i++) {
		explicit_bzero(env[i], strlen(env[i]));
		free(env[i]);
	}
	free(env);
}

/* Reads both pipes until EOF or the deadline. Returns 0, or -ETIMEDOUT. */
static int drain(int out_fd, int err_fd, int64_t deadline, struct strbuf *out, struct strbuf *errb)
{
	struct pollfd pfd[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
	int open_fds = 2;

	while (open_fds > 0) {
		int64_t left = deadline - time_monotonic_ms();
		char buf[4096];
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(pfd, 2, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 0 && out->len < EXEC_STDOUT_MAX)
				strbuf_append(out, buf, (size_t)n);
			else if (i == 1 && errb->len < EXEC_STDERR_MAX)
				strbuf_append(errb, buf, (size_t)n);
		}
	}
	return 0;
}

/* stderr as one line for a message: whitespace runs folded, at most EXEC_STDERR_MAX. */
static void one_line(struct strbuf *dst, const struct strbuf *src)
{
	const char *s = strbuf_str(src);
	bool space = false;

	for (size_t i = 0; i < src->len && dst->len < EXEC_STDERR_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ') {
			space = dst->len > 0;
			continue;
		}
		if (space)
			strbuf_putc(dst, ' ');
		space = false;
		strbuf_putc(dst, ch < 0x20 ? '?' : (char)ch);
	}
}

static char *dup_secret(const char *s, size_t *len)
{
	char *d = strdup(s);

	if (d && len)
		*len = strlen(d);
	return d;
}

static int decode_output(const struct k8s_config *cfg, const struct strbuf *out,
                         struct execcred_result *r, struct k8s_error *err)
{
	const char *cmd = cfg->exec->command;
	json_t *root = json_loadb(out->buf ? out->buf : "", out->len, 0, NULL);
	json_t *status = json_object_get(root, "status");
	const char *api = json_string_value(json_object_get(root, "apiVersion"));
	const char *kind = json_string_value(json_object_get(root, "kind"));
	const char *token = json_string_value(json_object_get(status, "token"));
	const char *cert = json_string_value(json_object_get(status, "clientCertificateData"));
	const char *key = json_string_value(json_object_get(status, "clientKeyData"));
	const char *exp = json_string_value(json_object_get(status, "expirationTimestamp"));
	int rc = 0;

	if (!json_is_object(root))
		rc = k8s_error_set(err, EACCES, "exec plugin %s printed no ExecCredential JSON",
		                   cmd);
	else if (!api || strcmp(api, cfg->exec->api_version) != 0)
		rc = k8s_error_set(
		    err, EACCES,
		    "exec plugin %s is configured for %s but answered with apiVersion %s", cmd,
		    cfg->exec->api_version, api ? api : "(none)");
	else if (!kind || strcmp(kind, "ExecCredential") != 0)
		rc = k8s_error_set(err, EACCES,
		                   "exec plugin %s answered kind %s, not ExecCredential", cmd,
		                   kind ? kind : "(none)");
	else if (!json_is_object(status))
		rc = k8s_error_set(err, EACCES, "exec plugin %s answered without a status", cmd);
	else if (!(token && *token) && !(cert && *cert && key && *key))
		rc = k8s_error_set(
		    err, EACCES,
		    "exec plugin %s answered neither a token nor a client certificate "
		    "and key",
		    cmd);
	else if ((cert && *cert) != (key && *key))
		rc = k8s_error_set(
		    err, EACCES,
		    "exec plugin %s answered a client certificate without its key (or "
		    "the other way round)",
		    cmd);
	else if (exp && *exp && time_parse_rfc3339(exp) == 0)
		rc = k8s_error_set(err, EACCES,
		                   "exec plugin %s answered an invalid expirationTimestamp "
		                   "\"%s\"",
		                   cmd, exp);
	if (!rc) {
		r->expires = exp && *exp ? time_parse_rfc3339(exp) : 0;
		if (token && *token && !(r->token = dup_secret(token, NULL)))
			rc = -ENOMEM;
		if (cert && *cert &&
		    (!(r->cert_pem = dup_secret(cert, &r->cert_len)) ||
		     !(r->key_pem = dup_secret(key, &r->key_len))))
			rc = -ENOMEM;
		if (rc)
			k8s_error_set(err, ENOMEM, "out of memory");
	}
	json_decref(root); /* jansson does not zero; the token lived in its heap briefly */
	return rc;
}

static int spawn_plugin(const struct k8s_config *cfg, char **env, int out_fd[2], int err_fd[2],
                        pid_t *pid)
{
	const struct k8s_exec_config *ex = cfg->exec;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	char **argv = calloc(ex->n_args + 2, sizeof(char *));
	int rc;

	if (!argv)
		return ENOMEM;
	argv[0] = ex->command;
	for (size_t i = 0; i < ex->n_args; i++)
		argv[i + 1] = ex->args[i];
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd[1], 2);
	/* The daemon blocks or ignores signals in its threads; the plugin should not inherit that.
	 */
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGCHLD);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGHUP);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	/* A group of its own, so that a deadline kills what the plugin started too (a
	 * wrapper script's child, a helper it waits on), not the plugin alone. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
	                                    POSIX_SPAWN_SETPGROUP);
	if (strchr(ex->command, '/'))
		rc = posix_spawn(pid, ex->command, &fa, &attr, argv, env);
	else
		rc = posix_spawnp(pid, ex->command, &fa, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	return rc;
}

int execcred_run(const struct k8s_config *cfg, int timeout_ms, struct execcred_result *out,
                 struct k8s_error *err)
{
	struct strbuf sout = STRBUF_INIT, serr = STRBUF_INIT, line = STRBUF_INIT;
	int out_fd[2] = {-1, -1}, err_fd[2] = {-1, -1};
	const char *cmd = cfg->exec->command;
	char *info = NULL, **env = NULL;
	size_t n_borrowed = 0;
	pid_t pid = -1;
	int rc = 0, status = 0, sp;

	memset(out, 0, sizeof(*out));
	info = exec_info(cfg);
	env = info ? exec_env(cfg, info, &n_borrowed) : NULL;
	if (!env) {
		rc = k8s_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (pipe2(out_fd, O_CLOEXEC) < 0 || pipe2(err_fd, O_CLOEXEC) < 0) {
		rc = k8s_error_set(err, errno, "cannot run exec plugin %s: %s", cmd,
		                   strerror(errno));
		goto out;
	}
	sp = spawn_plugin(cfg, env, out_fd, err_fd, &pid);
	close(out_fd[1]);
	close(err_fd[1]);
	out_fd[1] = err_fd[1] = -1;
	if (sp) {
		pid = -1;
		rc =
		    k8s_error_set(err, EACCES, "cannot run exec plugin %s: %s%s", cmd, strerror(sp),
		                  sp == ENOENT ? " (is it installed and on PATH?)" : "");
		goto out;
	}
	running_add(pid);
	if (drain(out_fd[0], err_fd[0], time_monotonic_ms() + timeout_ms, &sout, &serr) == -ETIMEDOUT) {
		kill_plugin(pid);
		pid = -1;
		rc = k8s_error_set(err, ETIMEDOUT,
		                   "exec plugin %s did not answer within %d ms and was killed", cmd,
		                   timeout_ms);
		goto out;
	}
	running_remove(pid);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	one_line(&line, &serr);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* 127: what a shell, or a spawn emulated with fork+exec (valgrind), reports
		 * for a command that could not be executed */
		if (WIFEXITED(status))
			rc = k8s_error_set(
			    err, EACCES, "exec plugin %s failed (exit status %d%s)%s%s", cmd,
			    WEXITSTATUS(status),
			    WEXITSTATUS(status) == 127 ? ": is it installed and on PATH?" : "",
			    line.len ? ": " : "", strbuf_str(&line));
		else
			rc = k8s_error_set(
			    err, EACCES, "exec plugin %s was killed by signal %d%s%s", cmd,
			    WTERMSIG(status), line.len ? ": " : "", strbuf_str(&line));
		goto out;
	}
	if (!strbuf_ok(&sout)) {
		rc = k8s_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	rc = decode_output(cfg, &sout, out, err);
out:
	if (pid > 0)
		kill_plugin(pid);
	for (int i = 0; i < 2; i++) {
		if (out_fd[i] >= 0)
			close(out_fd[i]);
		if (err_fd[i] >= 0)
			close(err_fd[i]);
	}
	if (sout.buf)
		explicit_bzero(sout.buf, sout.cap);
	strbuf_free(&sout);
	strbuf_free(&serr);
	strbuf_free(&line);
	exec_env_free(env, n_borrowed);
	free(info);
	if (rc)
		execcred_result_clear(out);
	return rc;
}

void execcred_result_clear(struct execcred_result *r)
{
	if (!r)
		return;
	k8s_secret_free(r->token, 0);
	k8s_secret_free(r->cert_pem, r->cert_len);
	k8s_secret_free(r->key_pem, r->key_len);
	memset(r, 0, sizeof(*r));
}
