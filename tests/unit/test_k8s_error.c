/* Tests k8s/error.c: the one Status → errno map (docs/k8s-client.md, "Errors") and
 * the error a caller fills, prefixes and clears. */
#include "k8s/error.h"
#include "tests/unit/harness.h"

#include <errno.h>

TEST(error_status_map_is_the_documented_table)
{
	static const struct {
		int code;
		const char *reason;
		int err;
	} table[] = {
	    {401, "Unauthorized", EACCES}, {403, "Forbidden", EACCES},
	    {404, "NotFound", ENOENT},     {405, "MethodNotAllowed", EPERM},
	    {409, "AlreadyExists", EEXIST}, {409, "Conflict", EBUSY},
	    {400, "BadRequest", EINVAL},   {422, "Invalid", EINVAL},
	    {410, "Expired", ESTALE},      {504, "", ETIMEDOUT},
	    {500, "Timeout", ETIMEDOUT},   {429, "TooManyRequests", EIO},
	    {500, "InternalError", EIO},   {503, NULL, EIO},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		CHECK_INT_EQ(k8s_errno_for_status(table[i].code, table[i].reason), table[i].err);
}

TEST(error_status_fills_the_error_and_returns_minus_errno)
{
	struct k8s_error e;

	CHECK_INT_EQ(k8s_error_status(&e, 409, "AlreadyExists", "tfjobs \"%s\" already exists",
	                              "mnist"),
	             -EEXIST);
	CHECK_INT_EQ(e.code, 409);
	CHECK_INT_EQ(e.err, EEXIST);
	CHECK_STR_EQ(e.reason, "AlreadyExists");
	CHECK_STR_EQ(e.message, "tfjobs \"mnist\" already exists");
	CHECK_INT_EQ(k8s_error_status(NULL, 404, "NotFound", "gone"), -ENOENT);
	k8s_error_clear(&e);
	CHECK_INT_EQ(e.code, 0);
	CHECK_INT_EQ(e.err, 0);
	CHECK_STR_EQ(e.message, "");
}

TEST(error_prefix_keeps_the_message_whole_or_cuts_its_end)
{
	struct k8s_error e;
	char big[K8S_ERROR_MESSAGE_MAX + 16];

	k8s_error_set(&e, EIO, "Connection refused");
	k8s_error_prefix(&e, "creating %s: ", "tfjobs/mnist");
	CHECK_STR_EQ(e.message, "creating tfjobs/mnist: Connection refused");
	CHECK_INT_EQ(e.err, EIO);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	k8s_error_set(&e, EINVAL, "%s", big);
	k8s_error_prefix(&e, "at: ");
	CHECK_INT_EQ(strlen(e.message), K8S_ERROR_MESSAGE_MAX - 1);
	CHECK(strncmp(e.message, "at: xxx", 7) == 0);
}
