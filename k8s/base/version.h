/*
 * arenafs' version: the one place it is written. `arenafs -V` prints it
 * (mount/options.c), the API client sends it in its User-Agent (k8s/http/client.c),
 * and `make deb` reads it from this line to name and stamp the Debian package
 * (tests/deb.sh), so keep the define on one line with a quoted string.
 *
 * Part of the floor under every room (k8s/base/README.md): uses nothing of arenafs.
 */
#ifndef ARENAFS_K8S_BASE_VERSION_H
#define ARENAFS_K8S_BASE_VERSION_H

#define ARENAFS_VERSION "0.1"

#endif
