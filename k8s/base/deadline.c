/*
 * The calling thread's action deadline (deadline.h): one thread-local number.
 * Tested by tests/unit/test_k8s_base_deadline.c.
 */
#include "k8s/base/deadline.h"

static _Thread_local int64_t action_deadline;

int64_t deadline_of_action(void)
{
	return action_deadline;
}

int64_t deadline_begin(int64_t at)
{
	int64_t previous = action_deadline;

	action_deadline = at > 0 ? at : 0;
	return previous;
}

void deadline_restore(int64_t previous)
{
	action_deadline = previous;
}
