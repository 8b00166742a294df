package harness

import (
	"os"
	"os/exec"
	"path/filepath"
)

// RealNodesMissing says why this machine cannot run WithKubelets control
// planes ("" when it can): they need root, the node packages
// (scripts/install-deps.sh) and kubelet and kube-proxy in K8sBin().
func RealNodesMissing() string {
	if os.Geteuid() != 0 {
		return "real nodes need root (network namespaces, containers)"
	}
	for _, b := range []string{"containerd", "containerd-shim-runc-v2", "ctr", "runc", "nsenter", "iptables", "gcc", "busybox", "openssl"} {
		if _, err := exec.LookPath(b); err != nil {
			return b + " is missing (scripts/install-deps.sh)"
		}
	}
	if _, err := os.Stat("/usr/lib/cni/bridge"); err != nil {
		return "containernetworking-plugins are missing (scripts/install-deps.sh)"
	}
	for _, b := range []string{"kubelet", "kube-proxy"} {
		if _, err := os.Stat(filepath.Join(K8sBin(), b)); err != nil {
			return b + " is missing in " + K8sBin() + " (make k8s)"
		}
	}
	return ""
}
