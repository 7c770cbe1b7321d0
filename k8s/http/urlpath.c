/*
 * Percent-encoding and path building for API requests (see urlpath.h).
 *
 * Everything but RFC 3986's unreserved characters is escaped, in paths and in
 * query values alike: Go's net/url decodes %XX everywhere (and '+' only in
 * queries, which is why a space is never written as '+'). Dot segments are
 * refused rather than escaped, because "." and ".." are unreserved and libcurl
 * and Go's router both resolve them.
 */
#include "k8s/http/urlpath.h"

#include <errno.h>
#include <string.h>

#include "k8s/names.h"

static bool is_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

void urlpath_escape(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (is_unreserved(*p)) {
			strbuf_putc(sb, (char)*p);
		} else {
			char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};

			strbuf_append(sb, esc, 3);
		}
	}
}

bool urlpath_name_ok(const char *s)
{
	if (!s || !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	return strpbrk(s, "/%") == NULL;
}

/*
 * Appends '/' and seg, escaped, as exactly one path segment. -EINVAL, with err
 * naming `what` ("pod name"), for NULL, "", ".", "..", or a '/' or '%' in seg.
 */
static int urlpath_add_segment(struct strbuf *sb, const char *what, const char *seg,
                               struct k8s_error *err)
{
	if (!urlpath_name_ok(seg))
		return k8s_error_set(err, EINVAL,
		                     "invalid %s \"%s\": may not be empty, \".\" or \"..\" and may "
		                     "not contain '/' or '%%'",
		                     what, seg ? seg : "");
	strbuf_putc(sb, '/');
	urlpath_escape(sb, seg);
	return 0;
}

void urlpath_add_query(struct strbuf *sb, const char *key, const char *value)
{
	const char *s = strbuf_str(sb);

	strbuf_putc(sb, strchr(s, '?') ? '&' : '?');
	urlpath_escape(sb, key);
	strbuf_putc(sb, '=');
	urlpath_escape(sb, value ? value : "");
}

/* Resource and subresource names are fixed words of the API ("pods", "log"). */
static bool is_word(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9'))
			return false;
	return true;
}

/* "/api/v1" or "/apis/G/V": lowercase DNS-ish characters between slashes, no dot segments. */
static bool api_path_ok(const char *p)
{
	if (!p || (strncmp(p, "/api/", 5) != 0 && strncmp(p, "/apis/", 6) != 0))
		return false;
	if (strstr(p, "//") || strstr(p, "/.") || p[strlen(p) - 1] == '/')
		return false;
	for (; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') && !strchr("/.-", *p))
			return false;
	return true;
}

int urlpath_resource(struct strbuf *sb, const char *api_path, const char *ns, const char *plural,
                     const char *name, const char *subresource, struct k8s_error *err)
{
	if (!api_path_ok(api_path))
		return k8s_error_set(err, EINVAL, "invalid API path \"%s\"",
		                     api_path ? api_path : "");
	if (!is_word(plural))
		return k8s_error_set(err, EINVAL, "invalid resource \"%s\"", plural ? plural : "");
	if (subresource && (!name || !is_word(subresource)))
		return k8s_error_set(err, EINVAL, "invalid subresource \"%s\"", subresource);
	strbuf_puts(sb, api_path);
	if (ns && *ns) {
		if (!k8s_is_dns1123_label(ns))
			return k8s_error_set(err, EINVAL,
			                     "invalid namespace \"%s\": must be a DNS-1123 label "
			                     "(lowercase letters, digits and '-', at most 63)",
			                     ns);
		strbuf_puts(sb, "/namespaces/");
		strbuf_puts(sb, ns);
	}
	strbuf_putc(sb, '/');
	strbuf_puts(sb, plural);
	if (name) {
		int rc = urlpath_add_segment(sb, "name", name, err);

		if (rc)
			return rc;
	}
	if (subresource) {
		strbuf_putc(sb, '/');
		strbuf_puts(sb, subresource);
	}
	if (!strbuf_ok(sb))
		return k8s_error_set(err, ENOMEM, "out of memory building a URL");
	return 0;
}
