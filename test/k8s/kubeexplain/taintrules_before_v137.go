//go:build k8s_1_35 || k8s_1_36

package kubeexplain

import (
	"context"

	"k8s.io/client-go/kubernetes/fake"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
)

// newSliceTracker: kube-scheduler v1.35 and v1.36 with their default gates
// do not read DeviceTaintRules (an alpha and an off-by-default beta API);
// the tracker serves the slices' informer as it is.
func newSliceTracker(ctx context.Context, f *syncFactory, _ *fake.Clientset, d *DRA) (*resourceslicetracker.Tracker, error) {
	return d.startPlainSliceTracker(ctx, f)
}
