// Command kube-feature-gates prints, as rows of the C++ X-macro file
// pkg/scheduler/framework/kube_feature_gates.inc, every feature gate that the
// kube-scheduler of the k8s.io/kubernetes version it is compiled against
// accepts in --feature-gates, with its default, stage and lock at that
// binary's own version (its default emulation version).
//
// It is built from this module (v1.34) and, with the same source, from
// -modfile=release-1.NN/go.mod for the other releases: it imports nothing of
// ksched.dev/test/k8s, so it links exactly the modules of that release's
// kube-scheduler (scripts/build-kube-feature-gates.sh). `make
// kube-feature-gates` writes the file; ctest's k8s/kube-feature-gates checks
// it. Keep it free of imports of this module's packages.
//
// The gate set is exact by construction: the program links kube-scheduler's
// own command package, so every init that registers gates into the binary's
// gate (kube's versioned gates, apiserver's, client-go's, logging and
// metrics) runs here too, and the command is set up as the binary is before
// its flags are applied.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"sort"

	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	printVersion := flag.Bool("kubernetes-version", false,
		"print the k8s.io/kubernetes version this program is linked with, and exit")
	flag.Parse()
	if *printVersion {
		version, err := kubernetesVersion()
		if err != nil {
			fmt.Fprintf(os.Stderr, "kube-feature-gates: %v\n", err)
			os.Exit(1)
		}
		fmt.Println(version)
		return
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kube-feature-gates: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	// As the binary with no flags: the command registers the kube component
	// (binary version, feature gate) in the default registry, and its
	// PersistentPreRunE applies the registry (emulation version = binary
	// version) before anything reads a gate.
	cmd := app.NewSchedulerCommand()
	if err := cmd.ParseFlags(nil); err != nil {
		return err
	}
	if err := compatibility.DefaultComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	gate := utilfeature.DefaultMutableFeatureGate
	if cmd.Flags().Lookup("feature-gates") == nil {
		return fmt.Errorf("kube-scheduler has no --feature-gates flag")
	}
	minor := gate.EmulationVersion().Minor()

	// GetAll leaves out the gates that are not available yet at the emulation
	// version (PreAlpha): the flag rejects them.
	specs := gate.GetAll()
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, string(name))
	}
	sort.Strings(names) // byte order
	out := bufio.NewWriter(os.Stdout)
	for _, name := range names {
		spec := specs[featuregate.Feature(name)]
		var stage string
		switch spec.PreRelease {
		case featuregate.Alpha:
			stage = "kAlpha"
		case featuregate.Beta:
			stage = "kBeta"
		case featuregate.GA:
			stage = "kGA"
		case featuregate.Deprecated:
			stage = "kDeprecated"
		default:
			return fmt.Errorf("gate %s: stage %q has no C++ name", name, spec.PreRelease)
		}
		fmt.Fprintf(out, "KSCHED_KUBE_GATE(%d, %q, %t, %s, %t)\n", minor, name, spec.Default, stage, spec.LockToDefault)
	}
	return out.Flush()
}

// kubernetesVersion is the k8s.io/kubernetes module version in this binary's
// build information (the generated file's header names it).
func kubernetesVersion() (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", fmt.Errorf("no build information in the binary")
	}
	for _, dep := range info.Deps {
		if dep.Path != "k8s.io/kubernetes" {
			continue
		}
		if dep.Replace != nil {
			return dep.Replace.Version, nil
		}
		return dep.Version, nil
	}
	return "", fmt.Errorf("k8s.io/kubernetes is not in the build information")
}
