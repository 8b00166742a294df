//go:build !k8s_1_35 && !k8s_1_36

package kubeexplain

import (
	"context"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/kubernetes/pkg/features"
)

// DeviceTaintRule as this release serves it (resource.k8s.io/v1 from 1.37).
type (
	DeviceTaintRule     = resourceapi.DeviceTaintRule
	DeviceTaintSelector = resourceapi.DeviceTaintSelector
	DeviceTaintEffect   = resourceapi.DeviceTaintEffect
)

const DeviceTaintRuleAPIVersion = "resource.k8s.io/v1"

// newSliceTracker is the ResourceSlice tracker as kube-scheduler makes it.
// With DRADeviceTaintRules it patches the rules' taints into the slices it
// serves from its informers' events, so the slice and rule informers run
// here (over the fake clientset, which gets the slices and rules) until the
// tracker has seen them all. The slices reach the informer only through its
// list: slices already in its indexer would reach the tracker as updates,
// which its HasSynced does not wait for, so a loaded machine could start
// scheduling before a pool's last slice was patched in (the pool then looks
// incomplete).
func newSliceTracker(ctx context.Context, f *syncFactory, client *fake.Clientset, d *DRA) (*resourceslicetracker.Tracker, error) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules) {
		return d.startPlainSliceTracker(ctx, f)
	}
	for _, o := range d.ResourceSlices {
		if err := client.Tracker().Add(o); err != nil {
			return nil, err
		}
	}
	for _, o := range d.DeviceTaintRules {
		if err := client.Tracker().Add(o); err != nil {
			return nil, err
		}
	}
	opts := resourceslicetracker.Options{
		EnableDeviceTaintRules: true,
		SliceInformer:          f.Resource().V1().ResourceSlices(),
		TaintInformer:          f.Resource().V1().DeviceTaintRules(),
	}
	t, err := resourceslicetracker.StartTracker(ctx, opts)
	if err != nil {
		return nil, err
	}
	go opts.SliceInformer.Informer().RunWithContext(ctx)
	go opts.TaintInformer.Informer().RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), t.HasSynced) {
		return nil, fmt.Errorf("ResourceSlice tracker did not sync")
	}
	return t, nil
}
