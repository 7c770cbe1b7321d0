//go:build tools

// The upstream program this module builds; see ../k8s/tools.go.
package tools

import _ "github.com/kubeflow/mpi-operator/cmd/mpi-operator"
