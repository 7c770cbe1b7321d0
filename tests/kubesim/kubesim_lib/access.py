"""SelfSubjectAccessReview (authorization.k8s.io/v1): "may I do this?", as
`kubectl auth can-i` asks it and arenafs asks before it offers a namespace's
submit/.

POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews with a spec of
resourceAttributes (namespace, verb, group, resource, subresource, name) or
nonResourceAttributes (path, verb); the answer is 201 with the review and
its status. Every authenticated user may ask (the real cluster's
system:basic-user ClusterRole), the viewer too. The decision is the same
function that authorizes kubesim's own requests (Sim.allows): the admin and
certificate users may do everything, the viewer get/list/watch in namespace
default, the reader get/list/watch anywhere, and anyone any read of a
non-resource path. As kube-apiserver's RBAC
authorizer answers, a denial has `allowed: false` and no reason (RBAC has no
opinion; nothing denies explicitly).

Only this one review is served: discovery does not list
authorization.k8s.io (kubectl auth can-i does not look for it there).
"""

import copy

from .store import ApiError

PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
API_VERSION = "authorization.k8s.io/v1"
KIND = "SelfSubjectAccessReview"


def _invalid(field, value, why):
    return ApiError(422, "Invalid", '%s.authorization.k8s.io "" is invalid: %s: Invalid value: '
                    '%s: %s' % (KIND, field, value, why),
                    {"group": "authorization.k8s.io", "kind": KIND,
                     "causes": [{"reason": "FieldValueInvalid", "message": "Invalid value: "
                                 "%s: %s" % (value, why), "field": field}]})


def review(sim, req):
    """Answers req (its path is PATH)."""
    sim.stats.count("create selfsubjectaccessreviews.authorization.k8s.io")
    if req.method != "POST":
        req.body()
        raise ApiError(405, "MethodNotAllowed", "the server does not allow this method on the "
                       "requested resource")
    body = req.json_body()
    if not isinstance(body, dict) or body.get("kind", KIND) != KIND:
        raise ApiError(400, "BadRequest", "the body is not a %s" % KIND)
    spec = body.get("spec") or {}
    res = spec.get("resourceAttributes")
    nonres = spec.get("nonResourceAttributes")
    if res is not None and nonres is not None:
        raise _invalid("spec.nonResourceAttributes", "\"%s\"" % nonres,
                       "cannot be specified in combination with resourceAttributes")
    if res is None and nonres is None:
        raise _invalid("spec.resourceAttributes", '"null"',
                       "exactly one of nonResourceAttributes or resourceAttributes must be "
                       "specified")
    user = req.user
    if res is not None:
        allowed = sim.allows(user, res.get("verb", ""), res.get("namespace") or None)
        if allowed and user.reads_everywhere:
            why = ('RBAC: allowed by ClusterRoleBinding "%s" of ClusterRole "%s" to User "%s"'
                   % (user.name, user.name, user.name))
        elif allowed and not user.admin:
            why = ('RBAC: allowed by RoleBinding "%s/default" of Role "%s" to User "%s"'
                   % (user.name, user.name, user.name))
        else:
            why = ""
    else:
        allowed = user.admin or nonres.get("verb") == "get"
        why = ""
    status = {"allowed": allowed}
    if why:
        status["reason"] = why
    out = {"kind": KIND, "apiVersion": API_VERSION, "metadata": {"creationTimestamp": None},
           "spec": copy.deepcopy(spec), "status": status}
    req.h.send_json(201, out)
