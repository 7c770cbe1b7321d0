/*
 * URL building for the API: path segments and query values percent-encoded
 * (RFC 3986), object names checked the way the API server checks them
 * (apimachinery's ValidatePathSegmentName: not "." or "..", no '/' or '%'), so
 * that nothing a user typed can change which path a request goes to.
 *
 * Used by every k8s/ file that builds a path (api.c, discovery.c, the cache and
 * the log streams). Pure functions on a strbuf.
 */
#ifndef ARENAFS_K8S_URLPATH_H
#define ARENAFS_K8S_URLPATH_H

#include <stdbool.h>

#include "k8s/error.h"
#include "k8s/base/strbuf.h"

/* Appends s with every byte outside A-Z a-z 0-9 - . _ ~ written as %XX. */
void urlpath_escape(struct strbuf *sb, const char *s);

/* True when s may be an object name in a path (ValidatePathSegmentName). */
bool urlpath_name_ok(const char *s);


/*
 * Appends "?key=value" (or "&key=value" when the URL has a query already), both
 * escaped: label and field selectors, continue tokens, sinceTime, ...
 */
void urlpath_add_query(struct strbuf *sb, const char *key, const char *value);

/*
 * Appends the path of a collection or an object:
 *   API_PATH[/namespaces/NS]/PLURAL[/NAME[/SUBRESOURCE]]
 * api_path is "/api/v1" or "/apis/GROUP/VERSION"; ns NULL or "" for
 * cluster-scoped or all-namespace collections, else a DNS-1123 label; name NULL
 * for the collection, else a valid path segment name (escaped); plural and
 * subresource lowercase words. -EINVAL with a message naming the bad part.
 */
int urlpath_resource(struct strbuf *sb, const char *api_path, const char *ns, const char *plural,
                     const char *name, const char *subresource, struct k8s_error *err);

#endif
