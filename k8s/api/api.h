/*
 * Writes and one-off reads of the API: create (POST, optionally dryRun=All),
 * delete with a propagationPolicy, get one object, and "may I?" (a
 * SelfSubjectAccessReview). Paths are built here from validated, encoded parts,
 * never pasted from user input.
 *
 * Used by fs/submit/submit_run.c (a submission: create, get, undo), fs/submit/suspend.c
 * (a merge patch of a job's suspend), fs/submit/submit.c
 * (rmdir of a job) and fs/submit/access.c (may these credentials create jobs in a
 * namespace). All return 0 or -errno with err filled from the API server's
 * Status (k8s/error.h).
 */
#ifndef ARENAFS_K8S_API_H
#define ARENAFS_K8S_API_H

#include <stdbool.h>

#include <jansson.h>

#include "k8s/http/client.h"
#include "k8s/objects/kinds.h"

/* Where a kind of object lives: "/api/v1" or "/apis/G/V", its plural, namespaced or not. */
struct k8s_resource {
	const char *api_path;        /* "/apis/kubeflow.org/v1" */
	const char *plural;          /* "tfjobs" */
	bool namespaced;
};

/* The resource of an object from its apiVersion and kind (jobs of kinds.h, Deployment,
 * Service, ConfigMap, Pod, ...); -EINVAL for a kind arenafs does not create. */
int k8s_resource_for(const char *api_version, const char *kind, struct k8s_resource *out,
		     struct k8s_error *err);

/*
 * POSTs obj into namespace ns. dry_run adds dryRun=All (nothing is stored).
 * *created (may be NULL) gets the object as the server returned it (uid set).
 */
int k8s_create(struct k8s_client *c, const char *ns, json_t *obj, bool dry_run,
	       json_t **created, struct k8s_error *err);

enum k8s_propagation { K8S_PROPAGATE_BACKGROUND, K8S_PROPAGATE_FOREGROUND, K8S_PROPAGATE_ORPHAN };

/*
 * DELETE of ns/name. uid (NULL or "": none) is a precondition: the server deletes
 * the object only while it is the one of that uid, and answers 409 Conflict (EBUSY)
 * when the name holds another one (deleted and made again since the caller looked).
 */
int k8s_delete(struct k8s_client *c, const struct k8s_resource *res, const char *ns,
	       const char *name, const char *uid, enum k8s_propagation prop,
	       struct k8s_error *err);

/* DELETE of the object obj names (its apiVersion, kind, metadata.name; metadata.uid,
 * when it has one, as the precondition), in ns: how a submission undoes what it made
 * when a later object fails. */
/* The merge patch that sets a job kind's suspend field (kinds.h's suspend_field,
 * "runPolicy.suspend" → {"spec":{"runPolicy":{"suspend":true}}}) to on, with the
 * job's uid as a precondition (a job made again under the same name is not
 * touched): NULL when out of memory; free() it. Pure. */
char *k8s_suspend_patch(const char *suspend_field, const char *uid, bool on);

/* metadata.uid of an object the server returned (k8s_create's *created), or NULL. */
const char *k8s_object_uid(const json_t *obj);

int k8s_delete_object(struct k8s_client *c, const char *ns, const json_t *obj,
		      enum k8s_propagation prop, struct k8s_error *err);

/* The resource of a job kind (kinds.h). */
void k8s_job_resource(enum job_kind kind, struct k8s_resource *out);

/* PATCH of one object with a JSON merge patch (application/merge-patch+json, the
 * kind the CRDs take): how jobs/NAME/suspend sets runPolicy.suspend. */
int k8s_merge_patch(struct k8s_client *c, const struct k8s_resource *res, const char *ns,
		    const char *name, const char *patch, struct k8s_error *err);

int k8s_get(struct k8s_client *c, const struct k8s_resource *res, const char *ns,
	    const char *name, json_t **out, struct k8s_error *err);

/* The answer of a SelfSubjectAccessReview (authorization.k8s.io/v1). */
struct k8s_access {
	bool allowed;
	char reason[256];            /* status.reason, then status.evaluationError; often "" (RBAC
	                                gives none for a no) */
};

/*
 * May the client's credentials do verb on resource of group (core: "") in
 * namespace ns (NULL: cluster-scoped)? POSTs a SelfSubjectAccessReview, which
 * every authenticated user may (system:basic-user), as `kubectl auth can-i` does.
 * 0 with *out filled, or -errno when the question could not be asked.
 */
int k8s_access_review(struct k8s_client *c, const char *verb, const char *group,
		      const char *resource, const char *ns, struct k8s_access *out,
		      struct k8s_error *err);

#endif
