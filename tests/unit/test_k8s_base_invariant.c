/* Tests k8s/base/invariant.h (the lock questions) and that the asserts of fs/ are
 * active in this build: a text put once too often stops the process. */
#include "k8s/base/invariant.h"
#include "fs/base/inode.h"
#include "tests/unit/harness.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(invariant_mutex_is_held_only_while_locked)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	CHECK(!mutex_is_held(&m));
	pthread_mutex_lock(&m);
	CHECK(mutex_is_held(&m));
	pthread_mutex_unlock(&m);
	CHECK(!mutex_is_held(&m));
	/* the question leaves the mutex as it found it */
	CHECK_INT_EQ(pthread_mutex_trylock(&m), 0);
	pthread_mutex_unlock(&m);
}

TEST(invariant_rwlock_is_held_by_readers_and_writers)
{
	pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;

	CHECK(!rwlock_is_held(&l));
	pthread_rwlock_rdlock(&l);
	CHECK(rwlock_is_held(&l));
	pthread_rwlock_unlock(&l);
	pthread_rwlock_wrlock(&l);
	CHECK(rwlock_is_held(&l));
	pthread_rwlock_unlock(&l);
	CHECK(!rwlock_is_held(&l));
}

TEST(invariant_a_count_below_zero_stops_the_process)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		struct fs_text *t = fs_text_new("x", 1);

		/* no reference left, as after one put too many (without freeing it, which
		 * the sanitizers would report first) */
		atomic_store(&t->refs, 0);
		close(2);       /* assert's message is expected */
		fs_text_put(t);
		_exit(0);
	}
	CHECK(pid > 0);
	CHECK_INT_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}
