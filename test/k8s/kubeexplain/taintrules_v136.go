//go:build k8s_1_36

package kubeexplain

import (
	"context"

	resourceapi "k8s.io/api/resource/v1beta2"
	"k8s.io/client-go/kubernetes/fake"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
)

// DeviceTaintRule as v1.36 serves it (resource.k8s.io/v1beta2, off by default
// as DRADeviceTaintRules is).
type (
	DeviceTaintRule     = resourceapi.DeviceTaintRule
	DeviceTaintSelector = resourceapi.DeviceTaintSelector
	DeviceTaintEffect   = resourceapi.DeviceTaintEffect
)

const DeviceTaintRuleAPIVersion = "resource.k8s.io/v1beta2"

// newSliceTracker: kube-scheduler v1.36 with its default gates does not read
// DeviceTaintRules; its tracker serves the slices' informer as it is.
func newSliceTracker(ctx context.Context, f *syncFactory, _ *fake.Clientset, _ *DRA) (*resourceslicetracker.Tracker, error) {
	return resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{SliceInformer: f.Resource().V1().ResourceSlices()})
}
