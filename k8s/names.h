/*
 * Kubernetes' name rules (apimachinery's validation), as pure predicates.
 *
 * Used before anything a user typed goes into a URL or an object: k8s/ checks
 * names when building paths, spec/ when validating a spec.
 */
#ifndef ARENAFS_K8S_NAMES_H
#define ARENAFS_K8S_NAMES_H

#include <stdbool.h>

#define K8S_DNS1123_LABEL_MAX     63
#define K8S_DNS1123_SUBDOMAIN_MAX 253
#define K8S_LABEL_VALUE_MAX       63

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 63: namespaces. */
bool k8s_is_dns1123_label(const char *s);
/* DNS-1123 labels joined by '.', at most 253: pods, nodes, most objects. */
bool k8s_is_dns1123_subdomain(const char *s);
/* ^[a-z]([-a-z0-9]*[a-z0-9])?$, at most 63: services, training-operator job names. */
bool k8s_is_dns1035_label(const char *s);
/* Label value: empty, or at most 63 of [A-Za-z0-9._-] starting and ending alphanumeric. */
bool k8s_is_label_value(const char *s);
/* Label or annotation key: optional DNS-1123 subdomain prefix and '/', then a name part
 * of at most 63 of [A-Za-z0-9._-] starting and ending alphanumeric. */
bool k8s_is_qualified_name(const char *s);
/* Environment variable name as the API accepts it: [-._a-zA-Z][-._a-zA-Z0-9]*. */
bool k8s_is_env_var_name(const char *s);

#endif
