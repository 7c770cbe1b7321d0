/*
 * The objects between a job and its pods (objects.h, struct owned): batch Jobs
 * and JobSets, kept only by name, uid and controller ownerReference, so that
 * jobs/NAME/events can follow the owner chain job -> JobSet -> batch Jobs -> pods
 * (fs/tree/view.c) without asking the cluster.
 *
 * Pure; called by the cache's reflectors (k8s/cache/reflector.c). Tested by
 * tests/unit/test_k8s_store.c (store_owned_by_their_controllers_uid).
 */
#include "k8s/objects/decode.h"

#include <string.h>

static const struct owned_kind_info OWNED_KINDS[OWNED_KIND_COUNT] = {
    [OWNED_BATCH_JOB] = {"Job", "batch", "v1", "jobs"},
    [OWNED_JOBSET] = {"JobSet", "jobset.x-k8s.io", "v1alpha2", "jobsets"},
};

const struct owned_kind_info *owned_kinds(int kind)
{
	return &OWNED_KINDS[kind >= 0 && kind < OWNED_KIND_COUNT ? kind : OWNED_BATCH_JOB];
}

static void owned_layout(void *obj, struct packer *pk)
{
	struct owned *o = obj;

	meta_layout(&o->meta, pk);
	pack_str(pk, &o->owner_kind, true);
	pack_str(pk, &o->owner_name, false);
	pack_str(pk, &o->owner_uid, false);
}

struct owned *owned_decode(json_t *obj, enum owned_kind kind)
{
	struct scratch s = SCRATCH_INIT;
	struct meta_more more;
	struct owned tmp;
	struct owned *o = NULL;

	memset(&tmp, 0, sizeof(tmp));
	if (dec_meta(&s, obj, &tmp.meta, &more))
		goto out;
	tmp.kind = (int)kind;
	tmp.owner_kind = tmp.owner_name = tmp.owner_uid = "";
	/* the controller only: another owner does not make it part of that job */
	for (size_t i = 0; i < more.n_owners; i++) {
		if (!more.owners[i].controller)
			continue;
		tmp.owner_kind = more.owners[i].kind;
		tmp.owner_name = more.owners[i].name;
		tmp.owner_uid = more.owners[i].uid;
		break;
	}
	if (!s.oom)
		o = pack_object(&tmp, sizeof(tmp), owned_layout);
out:
	scratch_free(&s);
	return o;
}

void owned_free(struct owned *o)
{
	pack_free(o, owned_layout);
}
