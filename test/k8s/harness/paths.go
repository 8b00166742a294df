// Package harness runs schedulers against real Kubernetes control planes:
// it starts a control plane with scripts/k8s-up.sh, deploys ksched the way
// operators do (the manifests' RBAC, a service-account token) or the real
// kube-scheduler (kubeadm's identity), plays the missing kubelets, and
// collects what a scheduler did into an Outcome that two schedulers' runs
// can be compared by.
package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
)

// RepoDir is the ksched checkout: $KSCHED_REPO, else the first parent of
// the working directory that holds scripts/k8s-up.sh.
func RepoDir() string {
	if d := os.Getenv("KSCHED_REPO"); d != "" {
		return d
	}
	d, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "scripts", "k8s-up.sh")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			panic("harness: no ksched checkout above the working directory; set KSCHED_REPO")
		}
		d = parent
	}
}

// BuildDir is ksched's CMake build directory ($KSCHED_BUILD or build/).
func BuildDir() string {
	if d := os.Getenv("KSCHED_BUILD"); d != "" {
		return d
	}
	return filepath.Join(RepoDir(), "build")
}

// K8sBin holds etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler ($K8S_BIN or build/k8s/bin, what `make k8s` writes).
func K8sBin() string {
	if d := os.Getenv("K8S_BIN"); d != "" {
		return d
	}
	return filepath.Join(RepoDir(), "build", "k8s", "bin")
}

// RunsDir keeps each run's control plane files and logs for inspection.
func RunsDir() string {
	if d := os.Getenv("K8S_RUNS"); d != "" {
		return d
	}
	return filepath.Join(RepoDir(), "build", "k8s", "runs")
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// pathSafe turns a test name into a folder name.
func pathSafe(s string) string { return unsafeChars.ReplaceAllString(s, "_") }

var k8sMinor struct {
	once  sync.Once
	minor string
	err   error
}

// K8sMinor is the minor ("1.37") of the components in K8sBin, read once
// from `kube-apiserver --version`.
func K8sMinor() (string, error) {
	k8sMinor.once.Do(func() {
		out, err := exec.Command(filepath.Join(K8sBin(), "kube-apiserver"), "--version").Output()
		if err != nil {
			k8sMinor.err = fmt.Errorf("kube-apiserver --version: %w", err)
			return
		}
		m := regexp.MustCompile(`v(\d+\.\d+)\.`).FindSubmatch(out)
		if m == nil {
			k8sMinor.err = fmt.Errorf("kube-apiserver --version: no version in %q", out)
			return
		}
		k8sMinor.minor = string(m[1])
	})
	return k8sMinor.minor, k8sMinor.err
}

// K8sMinorAtLeast says whether the components in K8sBin are 1.m or newer
// (what a scenario whose outcome changed at 1.m asserts).
func K8sMinorAtLeast(m int) (bool, error) {
	minor, err := K8sMinor()
	if err != nil {
		return false, err
	}
	var major, n int
	if _, err := fmt.Sscanf(minor, "%d.%d", &major, &n); err != nil {
		return false, fmt.Errorf("minor %q: %w", minor, err)
	}
	return major > 1 || n >= m, nil
}
