package kubeexplain

import "k8s.io/component-base/version"

// EmulatedVersion is the "1.NN" of the Kubernetes release this oracle is
// built from: the minor ksched must be told to behave as (`ksched simulate
// --emulated-version`) for the two to be comparable. component-base states
// it as a constant of each release (test binaries carry no module versions
// to read it from).
func EmulatedVersion() string { return version.DefaultKubeBinaryVersion }
