package kubeexplain

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	resourceinformers "k8s.io/client-go/informers/resource"
	resourcev1informers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// DRA holds the Dynamic Resource Allocation objects of a snapshot
// (resource.k8s.io/v1): DeviceClasses, ResourceClaims,
// ResourceClaimTemplates and ResourceSlices.
type DRA struct {
	DeviceClasses          []*resourceapi.DeviceClass
	ResourceClaims         []*resourceapi.ResourceClaim
	ResourceClaimTemplates []*resourceapi.ResourceClaimTemplate
	ResourceSlices         []*resourceapi.ResourceSlice
	DeviceTaintRules       []*DeviceTaintRule
}

// add decodes u when it is one of the DRA kinds; false otherwise. A
// namespaced object without a namespace gets "default", as ksched simulate
// reads it.
func (d *DRA) add(u *unstructured.Unstructured) (bool, error) {
	conv := runtime.DefaultUnstructuredConverter
	switch u.GetKind() {
	case "DeviceClass":
		o := &resourceapi.DeviceClass{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		d.DeviceClasses = append(d.DeviceClasses, o)
	case "ResourceClaim":
		o := &resourceapi.ResourceClaim{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		defaultClaimSpec(&o.Spec)
		d.ResourceClaims = append(d.ResourceClaims, o)
	case "ResourceClaimTemplate":
		o := &resourceapi.ResourceClaimTemplate{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		defaultClaimSpec(&o.Spec.Spec)
		d.ResourceClaimTemplates = append(d.ResourceClaimTemplates, o)
	case "ResourceSlice":
		o := &resourceapi.ResourceSlice{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		d.ResourceSlices = append(d.ResourceSlices, o)
	case "DeviceTaintRule":
		o := &DeviceTaintRule{}
		if err := conv.FromUnstructured(u.Object, o); err != nil {
			return true, err
		}
		d.DeviceTaintRules = append(d.DeviceTaintRules, o)
	default:
		return false, nil
	}
	return true, nil
}

// defaultClaimSpec applies the API server's defaults of device requests
// (allocationMode ExactCount, count 1), as ksched simulate's loader does.
func defaultClaimSpec(spec *resourceapi.ResourceClaimSpec) {
	def := func(mode *resourceapi.DeviceAllocationMode, count *int64) {
		if *mode == "" {
			*mode = resourceapi.DeviceAllocationModeExactCount
		}
		if *mode == resourceapi.DeviceAllocationModeExactCount && *count == 0 {
			*count = 1
		}
	}
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			def(&r.Exactly.AllocationMode, &r.Exactly.Count)
		}
		for j := range r.FirstAvailable {
			def(&r.FirstAvailable[j].AllocationMode, &r.FirstAvailable[j].Count)
		}
	}
}

// Objects lists every DRA object, for writing a snapshot.
func (d *DRA) Objects() []runtime.Object {
	out := appendObjects(nil, d.DeviceClasses)
	out = appendObjects(out, d.ResourceSlices)
	out = appendObjects(out, d.ResourceClaimTemplates)
	out = appendObjects(out, d.DeviceTaintRules)
	return appendObjects(out, d.ResourceClaims)
}

// WithClaims is a copy of d whose claims are replaced by the same-named
// ones of `written` (claims as a placement's PreBind wrote them), with the
// written claims d lacks added.
func (d DRA) WithClaims(written []*resourceapi.ResourceClaim) DRA {
	byKey := map[string]*resourceapi.ResourceClaim{}
	for _, c := range written {
		byKey[c.Namespace+"/"+c.Name] = c
	}
	claims := make([]*resourceapi.ResourceClaim, 0, len(d.ResourceClaims)+len(written))
	for _, c := range d.ResourceClaims {
		key := c.Namespace + "/" + c.Name
		if w := byKey[key]; w != nil {
			c = w
			delete(byKey, key)
		}
		claims = append(claims, c)
	}
	// Claims PreBind created (a pod's extended resources) come last.
	for _, c := range written {
		if byKey[c.Namespace+"/"+c.Name] != nil {
			claims = append(claims, c)
		}
	}
	d.ResourceClaims = claims
	return d
}

// index puts the classes and templates into the (unstarted) informers'
// indexers (newSliceTracker takes the slices), and the claims into the
// synchronous claim informer (the DRA manager's assume cache is fed by its
// handlers) and into the fake clientset that PreBind writes them through.
func (d *DRA) index(f *syncFactory, client *fake.Clientset) error {
	r := f.SharedInformerFactory.Resource().V1()
	for _, o := range d.DeviceClasses {
		if err := r.DeviceClasses().Informer().GetIndexer().Add(o); err != nil {
			return err
		}
	}
	for _, o := range d.ResourceClaimTemplates {
		if err := r.ResourceClaimTemplates().Informer().GetIndexer().Add(o); err != nil {
			return err
		}
	}
	for _, o := range d.ResourceClaims {
		if err := f.claims.set(o); err != nil {
			return err
		}
		if err := client.Tracker().Add(o); err != nil {
			return err
		}
	}
	return nil
}

// newDRAManager builds the SharedDRAManager as kube-scheduler does (an assume
// cache over the claim informer, the ResourceSlice tracker, the DeviceClass
// lister), with the DeviceTaintRules where the release reads them.
func newDRAManager(ctx context.Context, f *syncFactory, client *fake.Clientset, d *DRA) (fwk.SharedDRAManager, error) {
	logger := klog.FromContext(ctx)
	claims := assumecache.NewAssumeCache(logger, f.claims, "ResourceClaim", "", nil)
	tracker, err := newSliceTracker(ctx, f, client, d)
	if err != nil {
		return nil, err
	}
	m := dynamicresources.NewDRAManager(ctx, claims, tracker, f)
	// kube-scheduler chains the DeviceClass informer's handler through this
	// cache (DRAExtendedResource; nil when the gate is off), so NodeResourcesFit
	// and DynamicResources know which class serves an extended resource.
	if erCache, ok := m.DeviceClassResolver().(*extendedresourcecache.ExtendedResourceCache); ok && erCache != nil {
		for _, o := range d.DeviceClasses {
			erCache.OnAdd(o, true)
		}
	}
	return m, nil
}

// draBinder runs DynamicResources' Reserve and PreBind for a placed pod: a
// second instance of the plugin on the profile's framework handle reads the
// cycle state the framework's instance wrote (same state key) and shares
// its DRA manager, so the allocation Filter found for the node is written
// to the claims (fake clientset) and assumed, as the scheduler's binding
// cycle does.
type draBinder struct {
	reserve fwk.ReservePlugin
	preBind fwk.PreBindPlugin
	client  *fake.Clientset
}

func newDRABinder(ctx context.Context, h fwk.Handle, p *config.KubeSchedulerProfile, client *fake.Clientset) (*draBinder, error) {
	var args runtime.Object = &config.DynamicResourcesArgs{}
	for _, pc := range p.PluginConfig {
		if pc.Name == dynamicresources.Name {
			args = pc.Args
		}
	}
	pl, err := dynamicresources.New(ctx, args, binderHandle{h}, plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
	if err != nil {
		return nil, err
	}
	return &draBinder{reserve: pl.(fwk.ReservePlugin), preBind: pl.(fwk.PreBindPlugin), client: client}, nil
}

// binderHandle is the profile's handle under a profile name of its own: the
// plugin registers a pod-informer index per profile name, and the second
// instance's would collide with the framework's.
type binderHandle struct{ fwk.Handle }

func (h binderHandle) ProfileName() string { return h.Handle.ProfileName() + "/oracle-binder" }

// bind writes pod's claims for node and returns them as stored, the claim
// PreBind creates for the pod's extended resources included; nothing for a
// pod DynamicResources skipped or a profile without it.
func (b *draBinder) bind(ctx context.Context, state fwk.CycleState, pod *v1.Pod, node string) ([]*resourceapi.ResourceClaim, error) {
	if _, err := state.Read(fwk.StateKey(dynamicresources.Name)); err != nil {
		return nil, nil // DynamicResources is not in the profile, or had nothing to do
	}
	// PreBind records an extended-resource claim in the pod's status: the
	// pod must exist for that write.
	if err := b.client.Tracker().Add(pod.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	if s := b.reserve.Reserve(ctx, state, pod, node); !s.IsSuccess() {
		return nil, fmt.Errorf("DynamicResources Reserve on %s: %v", node, s.AsError())
	}
	if s := b.preBind.PreBind(ctx, state, pod, node); !s.IsSuccess() {
		return nil, fmt.Errorf("DynamicResources PreBind on %s: %v", node, s.AsError())
	}
	names := []string{}
	for _, pc := range pod.Spec.ResourceClaims {
		if name := claimName(pod, pc); name != "" {
			names = append(names, name)
		}
	}
	written, err := b.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if s := written.Status.ExtendedResourceClaimStatus; s != nil {
		names = append(names, s.ResourceClaimName)
	}
	var out []*resourceapi.ResourceClaim
	for _, name := range names {
		c, err := b.client.ResourceV1().ResourceClaims(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// createClaimsAsTheAPIServer makes the fake clientset create ResourceClaims
// as the API server and the scheduler's informer would see them: a claim
// created with only a generateName (DynamicResources' claim for a pod's
// extended resources) gets a name, a uid and a resourceVersion, counted so
// that a case's report is the same in every run, and the claim informer
// holds it at once (PreBind waits for the claim it created to reach its
// assume cache).
func createClaimsAsTheAPIServer(client *fake.Clientset, f *syncFactory) {
	n := 0
	client.PrependReactor("create", "resourceclaims", func(action clienttesting.Action) (bool, runtime.Object, error) {
		create, ok := action.(clienttesting.CreateAction)
		if !ok {
			return false, nil, nil
		}
		claim, ok := create.GetObject().(*resourceapi.ResourceClaim)
		if !ok {
			return false, nil, nil
		}
		if claim.Name == "" && claim.GenerateName != "" {
			n++
			claim.Name = fmt.Sprintf("%s%05d", claim.GenerateName, n)
			claim.UID = types.UID(fmt.Sprintf("generated-claim-%d", n))
		}
		if claim.ResourceVersion == "" {
			claim.ResourceVersion = "1"
		}
		if err := f.claims.set(claim.DeepCopy()); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
}

// attachDevicesAtOnce makes the fake clientset play a driver that attaches
// every device at once: a claim status written with an allocation whose
// devices have bindingConditions gets them True in status.devices, so
// DynamicResources' PreBind finds the binding ready at its first look
// instead of waiting for its timeout (ksched simulate takes such bindings
// as met).
func attachDevicesAtOnce(client *fake.Clientset) {
	client.PrependReactor("update", "resourceclaims", func(action clienttesting.Action) (bool, runtime.Object, error) {
		update, ok := action.(clienttesting.UpdateAction)
		if !ok || update.GetSubresource() != "status" {
			return false, nil, nil
		}
		claim, ok := update.GetObject().(*resourceapi.ResourceClaim)
		if !ok || claim.Status.Allocation == nil {
			return false, nil, nil
		}
		for _, r := range claim.Status.Allocation.Devices.Results {
			if len(r.BindingConditions) == 0 {
				continue
			}
			i := slices.IndexFunc(claim.Status.Devices, func(d resourceapi.AllocatedDeviceStatus) bool {
				return d.Driver == r.Driver && d.Pool == r.Pool && d.Device == r.Device
			})
			if i < 0 {
				claim.Status.Devices = append(claim.Status.Devices,
					resourceapi.AllocatedDeviceStatus{Driver: r.Driver, Pool: r.Pool, Device: r.Device})
				i = len(claim.Status.Devices) - 1
			}
			for _, cond := range r.BindingConditions {
				meta.SetStatusCondition(&claim.Status.Devices[i].Conditions, metav1.Condition{
					Type: cond, Status: metav1.ConditionTrue, Reason: "Attached"})
			}
		}
		return false, nil, nil
	})
}

// claimName is the claim a pod's entry names: its resourceClaimName, or for
// a template the claim its status records ("" when none).
func claimName(pod *v1.Pod, pc v1.PodResourceClaim) string {
	if pc.ResourceClaimName != nil {
		return *pc.ResourceClaimName
	}
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.Name == pc.Name && s.ResourceClaimName != nil {
			return *s.ResourceClaimName
		}
	}
	return ""
}

// The synchronous claim informer behind syncFactory.Resource().

type resourceGroup struct {
	resourceinformers.Interface
	f *syncFactory
}

func (g resourceGroup) V1() resourcev1informers.Interface { return resourceV1{g.Interface.V1(), g.f} }

type resourceV1 struct {
	resourcev1informers.Interface
	f *syncFactory
}

func (v resourceV1) ResourceClaims() claimInformerAPI {
	return claimInformer{v.Interface.ResourceClaims(), v.f.claims}
}

type claimInformer struct {
	claimInformerAPI
	s *syncInformer
}

func (i claimInformer) Informer() cache.SharedIndexInformer { return i.s }

var _ informers.SharedInformerFactory = (*syncFactory)(nil)

// startPlainSliceTracker starts a ResourceSlice tracker that serves the slice
// informer as it is (no DeviceTaintRules), with the slices put straight into
// that informer's indexer: no informer runs.
func (d *DRA) startPlainSliceTracker(ctx context.Context, f *syncFactory) (*resourceslicetracker.Tracker, error) {
	informer := f.Resource().V1().ResourceSlices()
	for _, o := range d.ResourceSlices {
		if err := informer.Informer().GetIndexer().Add(o); err != nil {
			return nil, err
		}
	}
	return resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{SliceInformer: informer})
}
