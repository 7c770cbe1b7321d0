/*
 * Name predicates (see names.h), following apimachinery's validation package.
 */
#include "k8s/names.h"

#include <ctype.h>
#include <string.h>

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return isalnum((unsigned char)c) != 0;
}

/* A DNS-1123 label of exactly len bytes starting at s. */
static bool label_ok(const char *s, size_t len)
{
	if (len == 0 || len > K8S_DNS1123_LABEL_MAX)
		return false;
	if (!is_lower_alnum(s[0]) || !is_lower_alnum(s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

bool k8s_is_dns1123_label(const char *s)
{
	return s && label_ok(s, strlen(s));
}

bool k8s_is_dns1123_subdomain(const char *s)
{
	size_t len;

	if (!s)
		return false;
	len = strlen(s);
	if (len == 0 || len > K8S_DNS1123_SUBDOMAIN_MAX)
		return false;
	for (const char *p = s;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);

		if (!label_ok(p, n))
			return false;
		if (!dot)
			return true;
		p = dot + 1;
	}
}

bool k8s_is_dns1035_label(const char *s)
{
	return k8s_is_dns1123_label(s) && s[0] >= 'a' && s[0] <= 'z';
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])? of len bytes, len ≤ 63. */
static bool name_part_ok(const char *s, size_t len)
{
	if (len == 0 || len > K8S_LABEL_VALUE_MAX)
		return false;
	if (!is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

bool k8s_is_label_value(const char *s)
{
	if (!s)
		return false;
	return s[0] == '\0' || name_part_ok(s, strlen(s));
}

bool k8s_is_qualified_name(const char *s)
{
	const char *slash;

	if (!s)
		return false;
	slash = strchr(s, '/');
	if (!slash)
		return name_part_ok(s, strlen(s));
	{
		char prefix[K8S_DNS1123_SUBDOMAIN_MAX + 1];
		size_t n = (size_t)(slash - s);

		if (n == 0 || n > K8S_DNS1123_SUBDOMAIN_MAX)
			return false;
		memcpy(prefix, s, n);
		prefix[n] = '\0';
		if (!k8s_is_dns1123_subdomain(prefix))
			return false;
	}
	return name_part_ok(slash + 1, strlen(slash + 1));
}

bool k8s_is_env_var_name(const char *s)
{
	if (!s || !*s)
		return false;
	if (!(isalpha((unsigned char)s[0]) || s[0] == '-' || s[0] == '.' || s[0] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '.' || *p == '_'))
			return false;
	return true;
}
