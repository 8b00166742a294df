//go:build !k8s_1_35 && !k8s_1_36

// The oracle's few contact points with APIs that differ between the
// Kubernetes releases it compiles against: this file is the default
// release's (v1.37); release-1.NN/programs builds with -tags k8s_1_NN and
// takes compat_v1NN.go instead.

package kubeexplain

import (
	"context"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1informers "k8s.io/client-go/informers/core/v1"
	resourcev1informers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/kubernetes/pkg/features"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// What the factory's groups return for the informers syncFactory replaces.
type (
	pvInformerAPI    = corev1informers.TypedPersistentVolumeInformer
	pvcInformerAPI   = corev1informers.TypedPersistentVolumeClaimInformer
	claimInformerAPI = resourcev1informers.TypedResourceClaimInformer
)

// newSchedulerCache is the scheduler's cache as kube-scheduler makes it
// (no API dispatcher: the oracle binds by hand).
func newSchedulerCache(ctx context.Context) internalcache.Cache {
	return internalcache.New(ctx, nil, utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload),
		utilfeature.DefaultFeatureGate.Enabled(features.CompositePodGroup))
}

// releaseFrameworkOptions: the shared managers kube-scheduler of this
// release hands every profile's framework besides the oracle's own options.
func releaseFrameworkOptions(f *syncFactory, c internalcache.Cache) []frameworkruntime.Option {
	return []frameworkruntime.Option{
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(f.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithPodGroupManager(c),
	}
}
