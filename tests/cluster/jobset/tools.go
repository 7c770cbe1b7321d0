//go:build tools

// The upstream program this module builds; see ../k8s/tools.go.
package tools

import _ "sigs.k8s.io/jobset"
