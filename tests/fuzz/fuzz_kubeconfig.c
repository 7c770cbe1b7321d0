/*
 * libFuzzer target: a kubeconfig file (k8s/auth/kubeconfig.c, kcfile.c), loaded from
 * an in-memory file. Loading runs no exec plugin (that happens at the first
 * request), so a fuzzed `exec:` section runs nothing here.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "k8s/auth/config.h"
#include "k8s/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct k8s_config_options opts = {path, NULL, NULL};
	struct k8s_config *cfg = NULL;
	struct k8s_error err;
	int fd = memfd_create("kubeconfig", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (kubeconfig_load(&opts, &cfg, &err) == 0)
			kubeconfig_free(cfg);
	}
	close(fd);
	return 0;
}
