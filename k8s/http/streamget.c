/*
 * Cancellable GET of a JSON object (see streamget.h).
 */
#include "k8s/http/streamget.h"

#include <errno.h>
#include <stdbool.h>

#include "k8s/base/strbuf.h"

struct body_acc {
	struct strbuf sb;
	size_t max;
	bool too_big;
};

static int acc_data(void *arg, const char *data, size_t len)
{
	struct body_acc *a = arg;

	if (a->sb.len + len > a->max) {
		a->too_big = true;
		return 1;
	}
	strbuf_append(&a->sb, data, len);
	return strbuf_ok(&a->sb) ? 0 : 1;
}

int k8s_stream_get_json(struct k8s_client *c, const char *path, atomic_bool *cancel, size_t max,
                        json_t **out, struct k8s_error *err)
{
	struct body_acc acc = {STRBUF_INIT, max, false};
	struct k8s_stream_request req = {path, NULL, acc_data, &acc, cancel, NULL};
	json_error_t jerr;
	int rc;

	*out = NULL;
	rc = k8s_stream_run(c, &req, err);
	if (rc == -ECANCELED && acc.too_big)
		rc = k8s_error_set(err, EFBIG, "the answer to GET %s is larger than %zu MiB", path,
		                   max >> 20);
	else if (rc == -ECANCELED && !(cancel && atomic_load(cancel)))
		rc = k8s_error_set(err, ENOMEM, "out of memory reading GET %s", path);
	if (rc == 0) {
		*out = json_loadb(acc.sb.buf ? acc.sb.buf : "", acc.sb.len, 0, &jerr);
		if (!*out || !json_is_object(*out)) {
			json_decref(*out);
			*out = NULL;
			rc = k8s_error_set(err, EPROTO,
			                   "the answer to GET %s is not a JSON object: %s", path,
			                   jerr.text);
		}
	}
	strbuf_free(&acc.sb);
	return rc;
}
