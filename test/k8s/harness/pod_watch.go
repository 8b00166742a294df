package harness

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// PodWatch is the test's own informer on the scenario namespace's pods:
// when it first saw each pod bound, and which had a failed scheduling
// attempt (PodScheduled False). Safe for concurrent use.
type PodWatch struct {
	mu      sync.Mutex
	cond    *sync.Cond
	boundAt map[string]time.Time
	last    time.Time // the latest first-bound time
	failed  map[string]bool
}

// WatchPods starts the informer and returns once it has synced.
func WatchPods(ctx context.Context, cs kubernetes.Interface) *PodWatch {
	w := &PodWatch{boundAt: map[string]time.Time{}, failed: map[string]bool{}}
	w.cond = sync.NewCond(&w.mu)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(Namespace))
	observe := func(obj interface{}) {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		now := time.Now()
		w.mu.Lock()
		defer w.mu.Unlock()
		if p.Spec.NodeName != "" {
			if _, seen := w.boundAt[p.Name]; !seen {
				w.boundAt[p.Name] = now
				w.last = now
			}
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				w.failed[p.Name] = true
			}
		}
		w.cond.Broadcast()
	}
	_, _ = factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, obj interface{}) { observe(obj) },
	})
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return w
}

// wait blocks until pred (called with the lock held) holds or the timeout
// ends; it says which.
func (w *PodWatch) wait(timeout time.Duration, pred func() bool) bool {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for !pred() {
		if time.Now().After(deadline) {
			return false
		}
		w.cond.Wait()
	}
	return true
}

// WaitFailed fails the test unless the pod has a failed attempt within 60 s.
func (w *PodWatch) WaitFailed(t testing.TB, pod string) {
	t.Helper()
	if !w.wait(60*time.Second, func() bool { return w.failed[pod] }) {
		t.Fatalf("pod %s: no failed scheduling attempt within 60 s", pod)
	}
}

// WaitBound returns when the pod was first seen bound, failing the test
// after 60 s.
func (w *PodWatch) WaitBound(t testing.TB, pod string) time.Time {
	t.Helper()
	var at time.Time
	if !w.wait(60*time.Second, func() bool {
		var ok bool
		at, ok = w.boundAt[pod]
		return ok
	}) {
		t.Fatalf("pod %s: not bound within 60 s", pod)
	}
	return at
}

// WaitBoundCount waits up to `timeout` until n pods have been seen bound;
// it returns when the last of those was, and whether n were reached.
func (w *PodWatch) WaitBoundCount(n int, timeout time.Duration) (time.Time, bool) {
	ok := w.wait(timeout, func() bool { return len(w.boundAt) >= n })
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last, ok
}
