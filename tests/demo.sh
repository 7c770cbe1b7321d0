#!/bin/sh
# make demo: start kubesim with a small lively cluster and mount arenafs on it.
echo "arenafs demo: not yet wired (the daemon is being built)" >&2
exit 1
