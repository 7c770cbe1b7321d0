/* Zero-then-free for secrets (see secret.h). explicit_bzero is not optimised away. */
#include "k8s/auth/secret.h"

#include <stdlib.h>
#include <string.h>

void k8s_secret_free(char *s, size_t len)
{
	if (!s)
		return;
	explicit_bzero(s, len ? len : strlen(s));
	free(s);
}
