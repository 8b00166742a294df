package kubeexplain

import (
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	resourceinformers "k8s.io/client-go/informers/resource"
	"k8s.io/client-go/tools/cache"
)

// syncFactory is the informer factory the oracle's frameworks get: the
// fake clientset's factory, never started (the oracle writes objects into
// the informers' indexers, which the plugins' listers read), except that
// the PersistentVolume and PersistentVolumeClaim informers also deliver
// every object to their event handlers, synchronously, and so does the
// ResourceClaim informer. VolumeBinding reads those two kinds, and
// DynamicResources its claims, only through assume caches fed by event
// handlers; an unstarted informer would leave them empty, and a started one
// delivers asynchronously, with no way to wait for the assume caches.
//
// Not thread-safe: one case, one goroutine.
type syncFactory struct {
	informers.SharedInformerFactory
	pvs, pvcs, claims *syncInformer
}

func newSyncFactory(f informers.SharedInformerFactory) *syncFactory {
	core := f.Core().V1()
	return &syncFactory{SharedInformerFactory: f,
		pvs:    &syncInformer{SharedIndexInformer: core.PersistentVolumes().Informer()},
		pvcs:   &syncInformer{SharedIndexInformer: core.PersistentVolumeClaims().Informer()},
		claims: &syncInformer{SharedIndexInformer: f.Resource().V1().ResourceClaims().Informer()},
	}
}

func (f *syncFactory) Core() coreinformers.Interface {
	return coreGroup{f.SharedInformerFactory.Core(), f}
}

func (f *syncFactory) Resource() resourceinformers.Interface {
	return resourceGroup{f.SharedInformerFactory.Resource(), f}
}

type coreGroup struct {
	coreinformers.Interface
	f *syncFactory
}

func (g coreGroup) V1() corev1informers.Interface { return coreV1{g.Interface.V1(), g.f} }

type coreV1 struct {
	corev1informers.Interface
	f *syncFactory
}

func (v coreV1) PersistentVolumes() pvInformerAPI {
	return pvInformer{v.Interface.PersistentVolumes(), v.f.pvs}
}

func (v coreV1) PersistentVolumeClaims() pvcInformerAPI {
	return pvcInformer{v.Interface.PersistentVolumeClaims(), v.f.pvcs}
}

// The listers stay the embedded ones: they read the same indexers.
type pvInformer struct {
	pvInformerAPI
	s *syncInformer
}

func (i pvInformer) Informer() cache.SharedIndexInformer { return i.s }

type pvcInformer struct {
	pvcInformerAPI
	s *syncInformer
}

func (i pvcInformer) Informer() cache.SharedIndexInformer { return i.s }

// syncInformer: the real informer's indexer, with handlers called in the
// caller's goroutine.
type syncInformer struct {
	cache.SharedIndexInformer
	handlers []cache.ResourceEventHandler
}

// synced is the registration AddEventHandler returns: the handler has
// seen every stored object (its remaining methods are per release, in
// compat_*.go).
type synced struct{}

func (synced) HasSynced() bool { return true }

// AddEventHandler hands h the objects already stored, as a started
// informer does for a late handler, then every later change.
func (s *syncInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	s.handlers = append(s.handlers, h)
	for _, o := range s.GetIndexer().List() {
		h.OnAdd(o, true)
	}
	return synced{}, nil
}

// set stores obj (added or replacing the object of its key) and tells the
// handlers.
func (s *syncInformer) set(obj interface{}) error {
	old, exists, err := s.GetIndexer().Get(obj)
	if err != nil {
		return err
	}
	if err := s.GetIndexer().Update(obj); err != nil {
		return err
	}
	for _, h := range s.handlers {
		if exists {
			h.OnUpdate(old, obj)
		} else {
			h.OnAdd(obj, false)
		}
	}
	return nil
}
