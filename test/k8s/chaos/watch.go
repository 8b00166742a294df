package chaos

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"ksched.dev/test/k8s/harness"
)

// violations collects invariant violations; safe for concurrent use.
type violations struct {
	mu    sync.Mutex
	list  []string
	count int
}

func (v *violations) Add(format string, args ...interface{}) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.count++
	if len(v.list) < 100 {
		v.list = append(v.list, time.Now().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
	}
}

func (v *violations) Snapshot() (int, []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.count, append([]string(nil), v.list...)
}

// observer is the independent view: its own informers on the admin client
// (straight to kube-apiserver, never through a proxy). It checks, as events
// arrive, that no pod's nodeName changes once set, and keeps the Lease's
// holder history.
type observer struct {
	pods    listersv1.PodLister
	nodes   listersv1.NodeLister
	v       *violations
	mu      sync.Mutex
	first   map[types.UID]string    // the first nodeName seen per pod
	boundAt map[types.UID]time.Time // when the watch first saw it bound
	names   map[types.UID]string    // namespace/name
	holders []holderSeen
	synced  func() bool
	// Real nodes (kubelets): the ksched pods the watch saw bound there, seen
	// Running there, and failed there (the kubelet refused or ended them).
	real        map[string]bool
	realBound   map[types.UID]bool
	realRunning map[types.UID]bool
	realFailed  map[types.UID]bool
}

type holderSeen struct {
	At     time.Time `json:"at"`
	Holder string    `json:"holder"`
}

func startObserver(ctx context.Context, cs kubernetes.Interface, v *violations, realNodes []string) *observer {
	o := &observer{v: v, first: map[types.UID]string{}, boundAt: map[types.UID]time.Time{}, names: map[types.UID]string{},
		real: map[string]bool{}, realBound: map[types.UID]bool{}, realRunning: map[types.UID]bool{}, realFailed: map[types.UID]bool{}}
	for _, n := range realNodes {
		o.real[n] = true
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	pods := f.Core().V1().Pods()
	_, _ = pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { o.pod(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj interface{}) { o.pod(obj.(*corev1.Pod)) },
	})
	o.pods = pods.Lister()
	o.nodes = f.Core().V1().Nodes().Lister()
	nodesInf := f.Core().V1().Nodes().Informer()
	lf := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("ksched-system"))
	leases := lf.Coordination().V1().Leases().Informer()
	_, _ = leases.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { o.lease(obj.(*coordinationv1.Lease)) },
		UpdateFunc: func(_, obj interface{}) { o.lease(obj.(*coordinationv1.Lease)) },
	})
	f.Start(ctx.Done())
	lf.Start(ctx.Done())
	o.synced = func() bool {
		return pods.Informer().HasSynced() && nodesInf.HasSynced() && leases.HasSynced()
	}
	cache.WaitForCacheSync(ctx.Done(), pods.Informer().HasSynced, nodesInf.HasSynced, leases.HasSynced)
	return o
}

func (o *observer) pod(p *corev1.Pod) {
	if p.Spec.NodeName == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.real[p.Spec.NodeName] && p.Spec.SchedulerName == harness.ProfileName {
		o.realPod(p)
	}
	if prev, ok := o.first[p.UID]; ok {
		if prev != p.Spec.NodeName {
			o.v.Add("pod %s/%s bound twice: %s, then %s", p.Namespace, p.Name, prev, p.Spec.NodeName)
		}
		return
	}
	o.first[p.UID] = p.Spec.NodeName
	o.boundAt[p.UID] = time.Now()
	o.names[p.UID] = p.Namespace + "/" + p.Name
}

// realPod follows a ksched pod on a real node. A pod that ends Failed
// without having been deleted was refused by the kubelet's admission (an
// overcommit by the scheduler: OutOfcpu, NodePorts, ...) or ended by it;
// the real pods' container (pause) runs until stopped. Needs o.mu.
func (o *observer) realPod(p *corev1.Pod) {
	o.realBound[p.UID] = true
	switch {
	case p.Status.Phase == corev1.PodRunning:
		o.realRunning[p.UID] = true
	case p.Status.Phase == corev1.PodFailed && p.DeletionTimestamp == nil && !o.realFailed[p.UID]:
		o.realFailed[p.UID] = true
		what := "failed on"
		if kubeletRejections[p.Status.Reason] {
			what = "rejected by the kubelet's admission on"
		}
		o.v.Add("pod %s/%s %s %s: %s: %s", p.Namespace, p.Name, what, p.Spec.NodeName, p.Status.Reason, p.Status.Message)
	}
}

// RealCounts: ksched pods the watch saw bound to real nodes, seen Running
// there, and failed there.
func (o *observer) RealCounts() (bound, running, failed int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.realBound), len(o.realRunning), len(o.realFailed)
}

func (o *observer) lease(l *coordinationv1.Lease) {
	if l.Name != "ksched" {
		return
	}
	h := ""
	if l.Spec.HolderIdentity != nil {
		h = *l.Spec.HolderIdentity
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.holders); n == 0 || o.holders[n-1].Holder != h {
		o.holders = append(o.holders, holderSeen{At: time.Now(), Holder: h})
	}
}

// Holder is the Lease holder the watch saw last.
func (o *observer) Holder() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.holders) == 0 {
		return ""
	}
	return o.holders[len(o.holders)-1].Holder
}

func (o *observer) Holders() []holderSeen {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]holderSeen(nil), o.holders...)
}

// Bound is every pod the watch saw bound (namespace/name) and when it first
// saw it.
func (o *observer) Bound() map[string]time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]time.Time{}
	for uid, name := range o.names {
		out[name] = o.boundAt[uid]
	}
	return out
}

// BoundCount is how many distinct pods the watch saw bound.
func (o *observer) BoundCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.first)
}

// CheckCapacity: on every node, the pods bound to it (terminating ones
// included, as a scheduler counts them) fit its allocatable CPU, memory and
// pod count, and no two use the same host port.
func (o *observer) CheckCapacity() {
	nodes, err := o.nodes.List(labels.Everything())
	if err != nil {
		return
	}
	pods, err := o.pods.List(labels.Everything())
	if err != nil {
		return
	}
	byNode := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
		}
	}
	for _, n := range nodes {
		ps := byNode[n.Name]
		cpu, mem := resource.Quantity{}, resource.Quantity{}
		ports := map[string]string{}
		for _, p := range ps {
			for _, c := range p.Spec.Containers {
				cpu.Add(c.Resources.Requests[corev1.ResourceCPU])
				mem.Add(c.Resources.Requests[corev1.ResourceMemory])
				for _, port := range c.Ports {
					if port.HostPort == 0 {
						continue
					}
					key := fmt.Sprintf("%s/%d", port.Protocol, port.HostPort)
					if other, ok := ports[key]; ok {
						o.v.Add("node %s: host port %s used by %s and %s", n.Name, key, other, p.Name)
					}
					ports[key] = p.Name
				}
			}
		}
		a := n.Status.Allocatable
		if cpu.Cmp(a[corev1.ResourceCPU]) > 0 || mem.Cmp(a[corev1.ResourceMemory]) > 0 ||
			int64(len(ps)) > a.Pods().Value() {
			names := []string{}
			for _, p := range ps {
				names = append(names, p.Name)
			}
			sort.Strings(names)
			o.v.Add("node %s over its allocatable: cpu %s, memory %s, %d pods %v", n.Name, cpu.String(), mem.String(), len(ps), names)
		}
	}
}

// Pending are the ksched pods of the test namespace not bound (nor being
// deleted).
func (o *observer) Pending() []*corev1.Pod {
	pods, _ := o.pods.Pods(harness.Namespace).List(labels.Everything())
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Spec.SchedulerName == harness.ProfileName && p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}
