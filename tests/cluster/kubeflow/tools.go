//go:build tools

// The upstream programs this module builds; see ../k8s/tools.go. One module
// for both: Trainer v2.2.0 and Kueue v0.17.0 require the same JobSet (v0.11.1)
// and controller-runtime (v0.23.3), so one dependency graph serves them and
// the packages they share compile once. JobSet's own controller is ../jobset.
package tools

import (
	_ "github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager"
	_ "sigs.k8s.io/kueue/cmd/kueue"
	_ "sigs.k8s.io/kueue/cmd/kueuectl"
)
