package kubeexplain

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// EmulatedVersion is the "1.NN" of the k8s.io/kubernetes module this oracle
// is linked against: the minor ksched must be told to behave as
// (`ksched simulate --emulated-version`) for the two to be comparable.
func EmulatedVersion() (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", fmt.Errorf("no build information in this binary")
	}
	for _, dep := range info.Deps {
		if dep.Path != "k8s.io/kubernetes" {
			continue
		}
		v := dep.Version
		if dep.Replace != nil {
			v = dep.Replace.Version
		}
		parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
		if len(parts) < 2 {
			return "", fmt.Errorf("k8s.io/kubernetes has version %q", v)
		}
		return parts[0] + "." + parts[1], nil
	}
	return "", fmt.Errorf("k8s.io/kubernetes is not linked into this binary")
}
