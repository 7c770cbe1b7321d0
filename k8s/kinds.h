/*
 * The training-job kinds arenafs knows: one static table of facts (group,
 * version, plural, replica-spec field, framework container).
 *
 * The table is data about Kubernetes, shared by k8s/ (what to watch), render/
 * (type names), spec/ (manifests) and fs/ (directory names). Pure, no I/O: which
 * of the kinds the cluster serves is asked by kinds_discover() (discovery.h).
 */
#ifndef ARENAFS_K8S_KINDS_H
#define ARENAFS_K8S_KINDS_H

#include <stdbool.h>

enum job_kind {
	JOB_TFJOB,
	JOB_PYTORCHJOB,
	JOB_MPIJOB,          /* kubeflow.org/v1 (training-operator) */
	JOB_MPIJOB_V2,       /* kubeflow.org/v2beta1 (mpi-operator); same CRD name as v1's */
	JOB_XGBOOSTJOB,
	JOB_PADDLEJOB,
	JOB_JAXJOB,
	JOB_TRAINJOB,        /* trainer.kubeflow.org/v1alpha1 */
	JOB_KIND_COUNT
};

struct job_kind_info {
	enum job_kind kind;
	const char *type;            /* "tfjob": the spec's `type`, the `type` file, directory suffix */
	const char *kind_name;       /* "TFJob" */
	const char *group;           /* "kubeflow.org" */
	const char *version;         /* "v1" */
	const char *plural;          /* "tfjobs" */
	const char *replica_field;   /* "tfReplicaSpecs"; NULL for TrainJob */
	const char *container;       /* "tensorflow": the container the operator requires */
	const char *operator_name;   /* value of training.kubeflow.org/operator-name, or NULL */
	const char *trainer;         /* what arena get prints as Trainer: "TFJOB" */
};

/* The row for a kind; never NULL for a valid enum value. */
const struct job_kind_info *kinds_info(enum job_kind kind);
/* The kind for a spec `type` ("tfjob", also "tf"), or -1. Both MPI kinds answer "mpijob":
 * pass the served set to pick the one the cluster has (NULL: v1). */
int kinds_by_type(const char *type, const bool served[JOB_KIND_COUNT]);
/* The kind for apiVersion + kind of a manifest, or -1. */
int kinds_by_api(const char *api_version, const char *kind_name);

#endif
