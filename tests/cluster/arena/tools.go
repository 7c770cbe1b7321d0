//go:build tools

// The upstream program this module builds: the Arena CLI, the peer arenafs is
// compared with (tests/integration/test_arena_parity.py). See ../k8s/tools.go.
package tools

import _ "github.com/kubeflow/arena/cmd/arena"
