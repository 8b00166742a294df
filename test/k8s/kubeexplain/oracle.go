package kubeexplain

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// LoadConfig decodes a KubeSchedulerConfiguration file with kube-scheduler's
// scheme (versioned defaults applied); "" gives the defaults.
func LoadConfig(path string) (*config.KubeSchedulerConfiguration, error) {
	if path == "" {
		return latest.Default()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("%s: not a KubeSchedulerConfiguration (%T)", path, obj)
	}
	return cfg, nil
}

// swappable lets the framework keep one SharedLister while each placement
// installs a new snapshot: plugins read the lister at every cycle, and the
// embedded interface's methods (a set that grows with each release) go to
// whichever snapshot it holds at the call.
type swappable struct{ fwk.SharedLister }

type profile struct {
	fw      framework.Framework
	weights map[string]int64
	dra     *draBinder
}

// scoreWeights: the weight each Score plugin runs with (Score entry over
// multiPoint entry; 0 means 1, as the framework).
func scoreWeights(p *config.KubeSchedulerProfile) map[string]int64 {
	w := map[string]int64{}
	if p.Plugins == nil {
		return w
	}
	for _, set := range []config.PluginSet{p.Plugins.MultiPoint, p.Plugins.Score} {
		for _, pl := range set.Enabled {
			w[pl.Name] = int64(pl.Weight)
			if pl.Weight == 0 {
				w[pl.Name] = 1
			}
		}
	}
	return w
}

// Run schedules every pending pod of c one at a time (queue order: priority
// descending, creationTimestamp, namespace/name), each through the
// framework's PreFilter, Filter (every node), PreScore and Score runners,
// binds it to the highest total (lowest name among ties) in the snapshot and
// goes on. No PostFilter (preemption) and no retry of pods left pending.
func Run(ctx context.Context, cfg *config.KubeSchedulerConfiguration, c *Cluster) (*Report, error) {
	// The framework instruments plugins with the scheduler's metric vectors,
	// which are nil until registered (idempotent).
	metrics.Register()
	// Everything the framework and the cache start (the framework's metrics
	// recorder ticks every second until its context ends) stops with Run:
	// a comparison runs hundreds of thousands of cases in one process.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := fake.NewClientset()
	factory := newSyncFactory(informers.NewSharedInformerFactory(client, 0))
	createClaimsAsTheAPIServer(client, factory)
	attachDevicesAtOnce(client)
	// The volume objects change as pods bind (ApplyVolumeDecisions): the
	// case's own slices stay as given.
	vc := &Cluster{PVs: append([]*v1.PersistentVolume(nil), c.PVs...),
		PVCs: append([]*v1.PersistentVolumeClaim(nil), c.PVCs...), StorageClasses: c.StorageClasses}
	if err := loadInformers(factory, c); err != nil {
		return nil, err
	}
	if err := c.DRA.index(factory, client); err != nil {
		return nil, err
	}
	draManager, err := newDRAManager(ctx, factory, client, &c.DRA)
	if err != nil {
		return nil, err
	}
	// The scheduler's own cache, fed in snapshot order as the informers
	// would, not cache.NewSnapshot: the two differ (an image's size on every
	// node is the size reported by the first node added, in the cache).
	cache := newSchedulerCache(ctx)
	lister := &swappable{}
	profiles := map[string]*profile{}
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		opts := append([]frameworkruntime.Option{
			frameworkruntime.WithClientSet(client),
			// DynamicResources records an Event while it waits for binding
			// conditions; the oracle keeps none.
			frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
			frameworkruntime.WithInformerFactory(factory),
			frameworkruntime.WithSnapshotSharedLister(lister),
			frameworkruntime.WithSharedDRAManager(draManager),
			frameworkruntime.WithParallelism(1)}, releaseFrameworkOptions(factory, cache)...)
		f, err := frameworkruntime.NewFramework(ctx, plugins.NewInTreeRegistry(), p, opts...)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.SchedulerName, err)
		}
		binder, err := newDRABinder(ctx, f, p, client)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.SchedulerName, err)
		}
		profiles[p.SchedulerName] = &profile{fw: f, weights: scoreWeights(p), dra: binder}
	}

	var bound, pending []*v1.Pod
	for _, p := range c.Pods {
		if p.Spec.NodeName != "" {
			bound = append(bound, p)
		} else if profiles[p.Spec.SchedulerName] != nil {
			pending = append(pending, p)
		}
	}
	sort.SliceStable(pending, func(i, j int) bool { return queueLess(pending[i], pending[j]) })

	logger := klog.FromContext(ctx)
	for _, n := range c.Nodes {
		cache.AddNode(logger, n)
	}
	for _, p := range bound {
		if err := cache.AddPod(logger, p); err != nil {
			return nil, err
		}
	}
	snapshot := internalcache.NewEmptySnapshot()
	lister.SharedLister = snapshot

	rep := &Report{}
	for _, pod := range pending {
		if err := cache.UpdateSnapshot(logger, snapshot); err != nil {
			return nil, err
		}
		prof := profiles[pod.Spec.SchedulerName]
		pr, state, err := scheduleOne(ctx, prof, snapshot, pod)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		if pr.Node != "" {
			if pr.Claims, err = prof.dra.bind(ctx, state, pod, pr.Node); err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			for _, claim := range pr.Claims {
				if err := factory.claims.set(claim); err != nil {
					return nil, err
				}
			}
			if pr.Volumes, err = volumeDecisions(state, pr.Node); err != nil {
				return nil, err
			}
			pvs, pvcs, err := vc.ApplyVolumeDecisions(pr.Volumes)
			if err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
			for _, pv := range pvs {
				if err := factory.pvs.set(pv); err != nil {
					return nil, err
				}
			}
			for _, pvc := range pvcs {
				if err := factory.pvcs.set(pvc); err != nil {
					return nil, err
				}
			}
			b := pod.DeepCopy()
			b.Spec.NodeName = pr.Node
			if err := cache.AddPod(logger, b); err != nil {
				return nil, err
			}
		}
		rep.Pods = append(rep.Pods, *pr)
	}
	return rep, nil
}

func podPriority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// queueLess is PrioritySort with ksched simulate's queue times
// (creationTimestamp, then namespace/name).
func queueLess(a, b *v1.Pod) bool {
	if pa, pb := podPriority(a), podPriority(b); pa != pb {
		return pa > pb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
}

func rejected(s *fwk.Status) Verdict {
	return Verdict{Plugin: s.Plugin(), Code: s.Code().String(),
		Reason: strings.Join(s.Reasons(), ", "), Reasons: s.Reasons()}
}

func scheduleOne(ctx context.Context, p *profile, snap *internalcache.Snapshot, pod *v1.Pod) (*PodReport, fwk.CycleState, error) {
	pr := &PodReport{Namespace: pod.Namespace, Name: pod.Name, Attempts: 1, Filter: map[string]Verdict{}}
	all, err := snap.NodeInfos().List()
	if err != nil {
		return nil, nil, err
	}
	// The Diagnosis as findNodesThatFitPod builds it, for the FitError text.
	diag := framework.Diagnosis{NodeToStatus: framework.NewDefaultNodeToStatus()}
	fitError := func() {
		fe := &framework.FitError{Pod: pod, NumAllNodes: len(all), Diagnosis: diag}
		pr.FitError = fe.Error()
	}
	// A cycle that ends in an error leaves the pod pending with the
	// error's text as its condition message and no Filter explanation.
	failed := func(errs ...string) (*PodReport, fwk.CycleState, error) {
		pr.Filter = map[string]Verdict{}
		pr.FitError, pr.Errors = errs[0], errs
		return pr, nil, nil
	}
	state := framework.NewCycleState()
	preRes, s, unschedPlugins := p.fw.RunPreFilterPlugins(ctx, state, pod)
	if !s.IsSuccess() {
		if !s.IsRejected() {
			return failed(s.AsError().Error())
		}
		// As findNodesThatFitPod: every node gets PreFilter's status.
		for _, ni := range all {
			pr.Filter[ni.Node().Name] = rejected(s)
		}
		diag.NodeToStatus.SetAbsentNodesStatus(s)
		diag.PreFilterMsg = s.Message()
		fitError()
		return pr, state, nil
	}
	nodes := all
	if !preRes.AllNodes() {
		nodes = nil
		absent := fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sortedKeys(unschedPlugins)))
		diag.NodeToStatus.SetAbsentNodesStatus(absent)
		for _, ni := range all {
			if preRes.NodeNames.Has(ni.Node().Name) {
				nodes = append(nodes, ni)
			} else {
				pr.Filter[ni.Node().Name] = rejected(absent)
			}
		}
	}
	var feasible []fwk.NodeInfo
	// kube-scheduler filters nodes in parallel and reports the first error
	// any of them returns, so every node is filtered and each erring
	// node's text kept: any of them is kube's answer.
	var errs []string
	for _, ni := range nodes {
		st := p.fw.RunFilterPlugins(ctx, state, pod, ni)
		switch {
		case st.IsSuccess():
			feasible = append(feasible, ni)
			pr.Filter[ni.Node().Name] = Verdict{Feasible: true}
		case st.IsRejected():
			pr.Filter[ni.Node().Name] = rejected(st)
			diag.NodeToStatus.Set(ni.Node().Name, st)
		default:
			errs = append(errs, st.AsError().Error())
		}
	}
	if len(errs) > 0 {
		return failed(errs...)
	}
	switch len(feasible) {
	case 0:
		fitError()
		return pr, state, nil
	case 1: // the scheduler takes a single feasible node without scoring
		pr.Node = feasible[0].Node().Name
		return pr, state, nil
	}
	if s := p.fw.RunPreScorePlugins(ctx, state, pod, feasible); !s.IsSuccess() {
		return nil, nil, s.AsError()
	}
	scores, s := p.fw.RunScorePlugins(ctx, state, pod, feasible)
	if !s.IsSuccess() {
		return nil, nil, s.AsError()
	}
	pr.Scores = map[string]NodeScores{}
	best := int64(-1)
	for _, ns := range scores {
		out := NodeScores{Plugins: map[string]PluginScore{}, Total: ns.TotalScore}
		for _, ps := range ns.Scores {
			w := p.weights[ps.Name]
			if w == 0 {
				w = 1
			}
			out.Plugins[ps.Name] = PluginScore{Normalized: ps.Score / w, Weight: w, Weighted: ps.Score}
		}
		pr.Scores[ns.Name] = out
		if ns.TotalScore > best || (ns.TotalScore == best && ns.Name < pr.Node) {
			best, pr.Node = ns.TotalScore, ns.Name
		}
	}
	return pr, state, nil
}

func sortedKeys[T interface{ UnsortedList() []string }](s T) []string {
	l := s.UnsortedList()
	sort.Strings(l)
	return l
}

// loadInformers puts c's objects into the informers' indexers, which the
// plugins' listers read (the informers are not started: that would cost
// WaitForCacheSync's 100 ms poll per case); PVs and PVCs also reach
// VolumeBinding's assume caches through syncFactory.
func loadInformers(f *syncFactory, c *Cluster) error {
	add := func(idx interface{ Add(interface{}) error }, objs ...interface{}) error {
		for _, o := range objs {
			if err := idx.Add(o); err != nil {
				return err
			}
		}
		return nil
	}
	for _, o := range c.Namespaces {
		if err := add(f.Core().V1().Namespaces().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.Nodes {
		if err := add(f.Core().V1().Nodes().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.StorageClasses {
		if err := add(f.Storage().V1().StorageClasses().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.CSINodes {
		if err := add(f.Storage().V1().CSINodes().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.CSIDrivers {
		if err := add(f.Storage().V1().CSIDrivers().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.CSIStorageCapacities {
		if err := add(f.Storage().V1().CSIStorageCapacities().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.VolumeAttachments {
		if err := add(f.Storage().V1().VolumeAttachments().Informer().GetIndexer(), o); err != nil {
			return err
		}
	}
	for _, o := range c.PVs {
		if err := f.pvs.set(o); err != nil {
			return err
		}
	}
	for _, o := range c.PVCs {
		if err := f.pvcs.set(o); err != nil {
			return err
		}
	}
	return c.Workloads.index(f)
}
