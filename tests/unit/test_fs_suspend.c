/* Tests fs/submit/suspend.c: what a write to jobs/NAME/suspend may say (the merge
 * patch is k8s_suspend_patch's: test_k8s_api.c). */
#include "fs/submit/suspend.h"
#include "fs/base/node.h"
#include "k8s/objects/kinds.h"
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

TEST(suspend_parse_takes_one_digit_and_echos_newline)
{
	struct k8s_error err = {0};
	bool on = false;

	CHECK_INT_EQ(suspend_parse("1\n", 2, &on, &err), 0);
	CHECK(on);
	CHECK_INT_EQ(suspend_parse("0", 1, &on, &err), 0);
	CHECK(!on);
	CHECK_INT_EQ(suspend_parse("yes\n", 4, &on, &err), -EINVAL);
	CHECK_STR_EQ(err.message, "write 1 to suspend the job, 0 to resume it");
	CHECK_INT_EQ(suspend_parse("", 0, &on, &err), -EINVAL);
	CHECK_INT_EQ(suspend_parse("10", 2, &on, &err), -EINVAL);
	CHECK_INT_EQ(suspend_parse("1\n\n", 3, &on, &err), -EINVAL);
}

TEST(suspend_supported_by_kind)
{
	struct fs_node n = FS_NODE_INIT;

	n.kind = JOB_PYTORCHJOB;
	CHECK(suspend_supported(&n));
	n.kind = JOB_MPIJOB_V2;
	CHECK(suspend_supported(&n));
	n.kind = JOB_SPARKJOB;
	CHECK(!suspend_supported(&n));
	n.kind = -1;
	CHECK(!suspend_supported(&n));
}
