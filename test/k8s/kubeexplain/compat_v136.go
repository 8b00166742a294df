//go:build k8s_1_36

// The v1.36 side of compat_v137.go.

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

type (
	pvInformerAPI    = corev1informers.PersistentVolumeInformer
	pvcInformerAPI   = corev1informers.PersistentVolumeClaimInformer
	claimInformerAPI = resourcev1informers.ResourceClaimInformer
)

func newSchedulerCache(ctx context.Context) internalcache.Cache {
	return internalcache.New(ctx, nil, utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload))
}

// releaseFrameworkOptions: the shared managers kube-scheduler of this
// release hands every profile's framework besides the oracle's own options.
func releaseFrameworkOptions(f *syncFactory, c internalcache.Cache) []frameworkruntime.Option {
	return []frameworkruntime.Option{
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(f.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithPodGroupManager(c),
	}
}
