//go:build tools

// The upstream program this module builds; see ../k8s/tools.go.
package tools

import _ "go.etcd.io/etcd/server/v3"
