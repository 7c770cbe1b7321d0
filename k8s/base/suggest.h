/*
 * "Did you mean ...?": the word of a list a mistyped one was meant to be, for the
 * messages that name what a user wrote wrong — the spec's keys and values
 * (render/jobspec/), the mount options and the kubeconfig's contexts (mount/, k8s/auth/).
 * Pure; no locks. Tested by tests/unit/test_k8s_suggest.c.
 */
#ifndef ARENAFS_K8S_BASE_SUGGEST_H
#define ARENAFS_K8S_BASE_SUGGEST_H

/*
 * The closest of the words (NULL-terminated) to s, or NULL when none is close: case,
 * '_' and '-' do not count ("workingDir" is working_dir), and a word is close at
 * most two edits away, one edit per three letters of it (two edits in a short word
 * make another word, not a typo).
 */
const char *k8s_suggest(const char *s, const char *const *words);

#endif
