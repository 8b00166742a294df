package plugincompare

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ksched.dev/test/k8s/kubeexplain"
)

// The generator's inputs for pod-level resources, in-place resize and
// PodTopologySpread's default selector, drawn after gen.go's own draws.

// podLevelResources gives some pods spec.resources (PodLevelResources, on
// in v1.34): cpu and/or memory requests that replace the containers' sum,
// with limits as the API server would default them.
func (g gen) podLevelResources(p *v1.Pod) {
	if !g.chance(0.08) {
		return
	}
	req := v1.ResourceList{}
	switch g.r.Intn(3) {
	case 0:
		req[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(g.between(5, 40))*100, resource.DecimalSI)
	case 1:
		req[v1.ResourceMemory] = *resource.NewQuantity(int64(g.between(1, 60))<<27, resource.BinarySI)
	default:
		req[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(g.between(5, 40))*100, resource.DecimalSI)
		req[v1.ResourceMemory] = *resource.NewQuantity(int64(g.between(1, 60))<<27, resource.BinarySI)
	}
	p.Spec.Resources = &v1.ResourceRequirements{Requests: req, Limits: req.DeepCopy()}
}

// resized gives a bound pod the status of an in-place resize: per container
// (and for the pod, with pod-level resources), the resources the kubelet
// reports and those it allocated, and sometimes a
// PodResizePending (Infeasible or Deferred) or PodResizeInProgress
// condition.
func (g gen) resized(p *v1.Pod) {
	if !g.chance(0.25) {
		return
	}
	status := func(c v1.Container) v1.ContainerStatus {
		cs := v1.ContainerStatus{Name: c.Name, Image: c.Image, Resources: &v1.ResourceRequirements{Requests: g.requests()}}
		if g.chance(0.5) {
			cs.AllocatedResources = g.requests()
		}
		return cs
	}
	for _, c := range p.Spec.Containers {
		if g.chance(0.8) {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, status(c))
		}
	}
	for _, c := range p.Spec.InitContainers {
		if g.chance(0.8) {
			p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, status(c))
		}
	}
	// With pod-level resources the kubelet also reports the pod's own
	// (InPlacePodLevelResourcesVerticalScaling, on from 1.36).
	// Never an empty list: the kubelet does not report one, and JSON
	// (omitempty) could not tell it from none.
	if p.Spec.Resources != nil && g.chance(0.7) {
		p.Status.Resources = &v1.ResourceRequirements{Requests: g.nonEmptyRequests()}
		if g.chance(0.7) {
			p.Status.AllocatedResources = g.nonEmptyRequests()
		}
	}
	switch g.r.Intn(4) {
	case 0:
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodResizePending,
			Status: v1.ConditionTrue, Reason: v1.PodReasonInfeasible})
	case 1:
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodResizePending,
			Status: v1.ConditionTrue, Reason: v1.PodReasonDeferred})
	case 2:
		p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{Type: v1.PodResizeInProgress,
			Status: v1.ConditionTrue})
	}
}

// workloads adds Services, ReplicaSets, StatefulSets and
// ReplicationControllers selecting the generated pods by app (sometimes by
// rev too), and makes some pods without constraints of their own their
// controllers' pods, so the default spread constraints select pods through
// them (kube's DefaultSelector). Some owners are missing or of another
// kind, and some selectors select nothing.
func (g gen) workloads(c *kubeexplain.Cluster) {
	meta := func(ns, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(ns + "-" + name)}
	}
	for _, ns := range namespaces {
		for _, app := range apps {
			if g.chance(0.3) {
				sel := map[string]string{"app": app}
				if g.chance(0.2) {
					sel["rev"] = g.pick("1", "2")
				}
				if g.chance(0.05) {
					sel = nil // a Service without a selector selects no pods
				}
				c.Services = append(c.Services, &v1.Service{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
					ObjectMeta: meta(ns, app+"-svc"),
					Spec:       v1.ServiceSpec{Selector: sel},
				})
			}
			if g.chance(0.5) {
				sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
				if g.chance(0.3) {
					sel.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "rev",
						Operator: metav1.LabelSelectorOpIn, Values: []string{"1", "2"}}}
				}
				c.ReplicaSets = append(c.ReplicaSets, &appsv1.ReplicaSet{
					TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
					ObjectMeta: meta(ns, app+"-rs"),
					Spec:       appsv1.ReplicaSetSpec{Selector: sel},
				})
			}
			if g.chance(0.2) {
				c.StatefulSets = append(c.StatefulSets, &appsv1.StatefulSet{
					TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
					ObjectMeta: meta(ns, app+"-ss"),
					Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{
						MatchLabels: map[string]string{"app": app, "tier": "stateful"}}},
				})
			}
			if g.chance(0.15) {
				c.ReplicationControllers = append(c.ReplicationControllers, &v1.ReplicationController{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
					ObjectMeta: meta(ns, app+"-rc"),
					Spec:       v1.ReplicationControllerSpec{Selector: map[string]string{"app": app}},
				})
			}
		}
	}
	controller := true
	for _, p := range c.Pods {
		if !g.chance(0.5) {
			continue
		}
		ref := metav1.OwnerReference{Controller: &controller, Name: p.Labels["app"]}
		switch g.r.Intn(5) {
		case 0, 1:
			ref.APIVersion, ref.Kind, ref.Name = "apps/v1", "ReplicaSet", ref.Name+"-rs"
		case 2:
			ref.APIVersion, ref.Kind, ref.Name = "apps/v1", "StatefulSet", ref.Name+"-ss"
		case 3:
			ref.APIVersion, ref.Kind, ref.Name = "v1", "ReplicationController", ref.Name+"-rc"
		default:
			ref.APIVersion, ref.Kind, ref.Name = "batch/v1", "Job", ref.Name+"-rs"
		}
		ref.UID = types.UID(fmt.Sprintf("%s-%s", p.Namespace, ref.Name))
		p.OwnerReferences = append(p.OwnerReferences, ref)
	}
}

// nonEmptyRequests is requests() with cpu when it drew nothing.
func (g gen) nonEmptyRequests() v1.ResourceList {
	rl := g.requests()
	if len(rl) == 0 {
		rl[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(g.between(1, 30))*100, resource.DecimalSI)
	}
	return rl
}
