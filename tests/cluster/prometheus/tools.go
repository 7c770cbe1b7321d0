//go:build tools

// The upstream program this module builds: Prometheus, which scrapes the
// stand-in GPU exporter (../gpu_exporter.py) and answers the queries Arena
// and arenafs send through kube-apiserver's service proxy (../monitoring.py).
// See ../k8s/tools.go.
package tools

import _ "github.com/prometheus/prometheus/cmd/prometheus"
