"""kubesim: a Kubernetes API server emulator with simulated controllers (tests only)."""
