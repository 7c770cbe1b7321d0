/* Tests k8s/base/deadline.c: the action deadline is the calling thread's alone,
 * and a restore puts back the one it replaced. */
#include "k8s/base/deadline.h"
#include "tests/unit/harness.h"

#include <pthread.h>

static void *other_thread(void *arg)
{
	*(int64_t *)arg = deadline_of_action();
	return NULL;
}

TEST(deadline_is_per_thread_and_restored)
{
	int64_t seen = -1, prev;
	pthread_t t;

	CHECK(deadline_of_action() == 0);
	prev = deadline_begin(5000);
	CHECK(prev == 0 && deadline_of_action() == 5000);
	CHECK_INT_EQ(pthread_create(&t, NULL, other_thread, &seen), 0);
	pthread_join(t, NULL);
	CHECK(seen == 0);
	CHECK(deadline_begin(-3) == 5000 && deadline_of_action() == 0);
	deadline_restore(5000);
	CHECK(deadline_of_action() == 5000);
	deadline_restore(prev);
	CHECK(deadline_of_action() == 0);
}
