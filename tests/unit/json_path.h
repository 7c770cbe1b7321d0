/*
 * Test helper: reach into a JSON object with a path such as
 * "spec.tfReplicaSpecs.Worker.template.spec.containers[0].image". Keys holding
 * dots or slashes are written in brackets: metadata.labels["arenafs.io/spec"].
 */
#ifndef ARENAFS_TEST_JSON_PATH_H
#define ARENAFS_TEST_JSON_PATH_H

#include <jansson.h>

/* The value at path, or NULL. Borrowed. */
json_t *jp(const json_t *root, const char *path);
/* The string at path, or NULL. */
const char *jp_str(const json_t *root, const char *path);
/* The integer at path, or -999999 when there is none. */
long long jp_int(const json_t *root, const char *path);
/* The size of the array or object at path, or -1. */
long long jp_size(const json_t *root, const char *path);
/* The value of the env var name in the container at path, or NULL. */
const char *jp_env(const json_t *root, const char *container_path, const char *name);
/* The element of the array at path whose "name" is name, or NULL. */
json_t *jp_named(const json_t *root, const char *array_path, const char *name);

#endif
