//go:build k8s_1_35

// The v1.35 side of compat_v137.go.

package kubeexplain

import (
	"context"

	corev1informers "k8s.io/client-go/informers/core/v1"
	resourcev1informers "k8s.io/client-go/informers/resource/v1"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
)

type (
	pvInformerAPI    = corev1informers.PersistentVolumeInformer
	pvcInformerAPI   = corev1informers.PersistentVolumeClaimInformer
	claimInformerAPI = resourcev1informers.ResourceClaimInformer
)

func newSchedulerCache(ctx context.Context) internalcache.Cache {
	return internalcache.New(ctx, 0, nil)
}
