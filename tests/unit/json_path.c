/* Test helper: JSON paths for assertions (see json_path.h). */
#include "tests/unit/json_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *jp(const json_t *root, const char *path)
{
	const json_t *cur = root;
	const char *p = path;

	while (cur && *p) {
		char key[256];
		size_t n = 0;

		if (*p == '.')
			p++;
		if (*p == '[' && p[1] == '"') {
			const char *end = strstr(p + 2, "\"]");

			if (!end || (size_t)(end - p - 2) >= sizeof(key))
				return NULL;
			memcpy(key, p + 2, (size_t)(end - p - 2));
			key[end - p - 2] = '\0';
			cur = json_object_get(cur, key);
			p = end + 2;
		} else if (*p == '[') {
			char *end;
			long i = strtol(p + 1, &end, 10);

			if (*end != ']')
				return NULL;
			cur = json_array_get(cur, (size_t)i);
			p = end + 1;
		} else {
			while (*p && *p != '.' && *p != '[' && n + 1 < sizeof(key))
				key[n++] = *p++;
			key[n] = '\0';
			cur = json_object_get(cur, key);
		}
	}
	return (json_t *)cur;
}

const char *jp_str(const json_t *root, const char *path)
{
	return json_string_value(jp(root, path));
}

long long jp_int(const json_t *root, const char *path)
{
	const json_t *v = jp(root, path);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -999999;
}

long long jp_size(const json_t *root, const char *path)
{
	const json_t *v = jp(root, path);

	if (json_is_array(v))
		return (long long)json_array_size(v);
	if (json_is_object(v))
		return (long long)json_object_size(v);
	return -1;
}

json_t *jp_named(const json_t *root, const char *array_path, const char *name)
{
	const json_t *a = jp(root, array_path);
	json_t *item;
	size_t i;

	json_array_foreach(a, i, item)
	{
		const char *n = json_string_value(json_object_get(item, "name"));

		if (n && strcmp(n, name) == 0)
			return item;
	}
	return NULL;
}

const char *jp_env(const json_t *root, const char *container_path, const char *name)
{
	char path[512];
	json_t *e;

	snprintf(path, sizeof(path), "%s.env", container_path);
	e = jp_named(root, path, name);
	return e ? json_string_value(json_object_get(e, "value")) : NULL;
}
