package kubeexplain

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
)

// Workloads are the objects whose selectors PodTopologySpread's default
// constraints read (kube's helper.DefaultSelector): Services,
// ReplicationControllers, ReplicaSets and StatefulSets.
type Workloads struct {
	Services               []*v1.Service
	ReplicationControllers []*v1.ReplicationController
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
}

// add decodes u when it is one of the workload kinds; false otherwise.
// A missing namespace becomes "default", as ksched simulate reads it.
func (w *Workloads) add(u *unstructured.Unstructured) (bool, error) {
	switch u.GetKind() {
	case "Service", "ReplicationController", "ReplicaSet", "StatefulSet":
		if u.GetNamespace() == "" {
			u.SetNamespace("default")
		}
	default:
		return false, nil
	}
	conv := runtime.DefaultUnstructuredConverter
	switch u.GetKind() {
	case "Service":
		o := &v1.Service{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		w.Services = append(w.Services, o)
	case "ReplicationController":
		o := &v1.ReplicationController{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		w.ReplicationControllers = append(w.ReplicationControllers, o)
	case "ReplicaSet":
		o := &appsv1.ReplicaSet{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		w.ReplicaSets = append(w.ReplicaSets, o)
	case "StatefulSet":
		o := &appsv1.StatefulSet{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		w.StatefulSets = append(w.StatefulSets, o)
	}
	return true, nil
}

// Objects lists every workload, for writing a snapshot.
func (w *Workloads) Objects() []runtime.Object {
	out := appendObjects(nil, w.Services)
	out = appendObjects(out, w.ReplicationControllers)
	out = appendObjects(out, w.ReplicaSets)
	return appendObjects(out, w.StatefulSets)
}

// index puts the workloads into the (unstarted) informers' indexers that
// PodTopologySpread's listers read.
func (w *Workloads) index(f informers.SharedInformerFactory) error {
	add := func(i interface{ Add(obj any) error }, o any) error { return i.Add(o) }
	for _, o := range w.Services {
		if err := add(f.Core().V1().Services().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range w.ReplicationControllers {
		if err := add(f.Core().V1().ReplicationControllers().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range w.ReplicaSets {
		if err := add(f.Apps().V1().ReplicaSets().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range w.StatefulSets {
		if err := add(f.Apps().V1().StatefulSets().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	return nil
}
