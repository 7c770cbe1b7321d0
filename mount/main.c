/*
 * arenafs entry point. Placeholder until the tree lands (issue 4): it loads
 * nothing and mounts nothing, and says so.
 */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "arenafs: not built yet\n");
	return 1;
}
