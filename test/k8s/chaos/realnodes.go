package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/retry"

	"ksched.dev/test/k8s/harness"
)

// Real nodes (harness.WithKubelets): kubelets with containerd that admit and
// run what ksched binds to them. They are tainted, so only the "real"
// Deployment, which tolerates the taint and selects them, goes there: the
// rest of the load uses images no kubelet here has and claims the fake
// provisioner's local PVs.
const (
	realKubelets   = 2
	realTaintKey   = "chaos.ksched.dev/real-node"
	realDeployment = "real"
	// Each real pod asks realCPUPercent of a node's allocatable CPU, so 3
	// fit on a node and a 4th would overcommit it: ksched's count of the
	// node (terminating pods included) is what the kubelet's admission
	// checks.
	realCPUPercent = 30
	// Heartbeats of the fake nodes: as a kubelet renews its Lease.
	nodeLeaseDuration = 40
	nodeLeaseRenew    = 10 * time.Second
)

// kubeletRejections are the reasons a kubelet's admission gives when it
// refuses a pod bound to it (phase Failed): a scheduler's overcommit.
var kubeletRejections = map[string]bool{
	"OutOfcpu": true, "OutOfmemory": true, "OutOfpods": true, "OutOfephemeral-storage": true,
	"NodeAffinity": true, "NodePorts": true, "NodeName": true, "UnexpectedAdmissionError": true,
	"PodOSNotSupported": true,
}

// realLoad scales the real Deployment between 0 and max replicas: up to fit
// run, the rest must stay pending (no node has room for them).
type realLoad struct {
	cs     kubernetes.Interface
	nodes  []string // node-1, node-2
	image  string
	cpu    resource.Quantity
	fit    int32 // pods of cpu the real nodes hold
	max    int32
	mu     sync.Mutex
	scales int
	errors int
}

// findRealNodes is the names of the Nodes a kubelet registered.
func findRealNodes(ctx context.Context, cs kubernetes.Interface) ([]string, error) {
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range list.Items {
		if n.Status.NodeInfo.KubeletVersion != "" {
			out = append(out, n.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// setupRealLoad taints the real nodes and creates the real Deployment (1
// replica), sized from the nodes' allocatable CPU.
func setupRealLoad(ctx context.Context, cs kubernetes.Interface, nodes []string, image string) (*realLoad, error) {
	r := &realLoad{cs: cs, nodes: nodes, image: image}
	minMilli := int64(0)
	for _, name := range nodes {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if m := n.Status.Allocatable.Cpu().MilliValue(); minMilli == 0 || m < minMilli {
				minMilli = m
			}
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: realTaintKey, Value: "true", Effect: corev1.TaintEffectNoSchedule})
			_, err = cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("tainting %s: %w", name, err)
		}
	}
	perPod := minMilli * realCPUPercent / 100
	if perPod == 0 {
		return nil, fmt.Errorf("real nodes report no allocatable CPU")
	}
	r.cpu = *resource.NewMilliQuantity(perPod, resource.DecimalSI)
	r.fit = int32(int64(len(nodes)) * (100 / realCPUPercent))
	r.max = r.fit + 2
	_, err := cs.AppsV1().Deployments(harness.Namespace).Create(ctx, r.deployment(), metav1.CreateOptions{})
	return r, err
}

func (r *realLoad) deployment() *appsv1.Deployment {
	one := int32(1)
	grace := int64(2) // the kubelet stops the pod; ksched counts it meanwhile
	noToken := false
	pod := harness.NewPod("", "", "16Mi")
	pod.Labels = map[string]string{"app": realDeployment}
	c := &pod.Spec.Containers[0]
	c.Image = r.image
	c.ImagePullPolicy = corev1.PullIfNotPresent // imported by k8s-up.sh; nothing is pulled
	c.Resources.Requests[corev1.ResourceCPU] = r.cpu
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Mi")}
	pod.Spec.TerminationGracePeriodSeconds = &grace
	// No token volume: less work for the kubelets on a small machine.
	pod.Spec.AutomountServiceAccountToken = &noToken
	pod.Spec.Tolerations = []corev1.Toleration{{Key: realTaintKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: r.nodes,
			}}}},
		},
	}}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: realDeployment, Namespace: harness.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: pod.Labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels}, Spec: pod.Spec},
		},
	}
}

// Loop scales the real Deployment every 4-10 s (its own RNG, so the fake
// nodes' load is the same sequence with or without kubelets).
func (r *realLoad) Loop(ctx context.Context, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	for sleepCtx(ctx, time.Duration(4000+rng.Intn(6000))*time.Millisecond) {
		r.scale(ctx, int32(rng.Intn(int(r.max)+1)))
	}
}

func (r *realLoad) scale(ctx context.Context, n int32) {
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
	_, err := r.cs.AppsV1().Deployments(harness.Namespace).Patch(ctx, realDeployment, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errors++
	} else {
		r.scales++
	}
}

// Quiesce scales the Deployment down to what fits, so every real pod left
// must be bound and Running.
func (r *realLoad) Quiesce(ctx context.Context) {
	d, err := r.cs.AppsV1().Deployments(harness.Namespace).Get(ctx, realDeployment, metav1.GetOptions{})
	if err == nil && d.Spec.Replicas != nil && *d.Spec.Replicas > r.fit {
		r.scale(ctx, r.fit)
	}
}

func (r *realLoad) Counts() (scales, errors int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scales, r.errors
}

// heartbeatFakeNodes renews a Lease in kube-node-lease for every Node
// without a kubelet, as a kubelet does for its own. With kubelets the
// node-lifecycle controller runs (k8s-up.sh), and a Node whose Lease is not
// renewed within its grace period turns Ready=Unknown and is tainted
// unreachable (NoSchedule: ksched may no longer place pods there). The
// Lease is owned by its Node, so the garbage collector removes it with a
// node the load deletes.
func heartbeatFakeNodes(ctx context.Context, cs kubernetes.Interface, nodes listersv1.NodeLister) {
	leases := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	for {
		list, _ := nodes.List(labels.Everything())
		for _, n := range list {
			if n.Status.NodeInfo.KubeletVersion != "" || n.DeletionTimestamp != nil {
				continue
			}
			now := metav1.NewMicroTime(time.Now())
			l, err := leases.Get(ctx, n.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				duration := int32(nodeLeaseDuration)
				_, _ = leases.Create(ctx, &coordinationv1.Lease{
					ObjectMeta: metav1.ObjectMeta{Name: n.Name, OwnerReferences: []metav1.OwnerReference{{
						APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID,
					}}},
					Spec: coordinationv1.LeaseSpec{HolderIdentity: &n.Name, LeaseDurationSeconds: &duration, RenewTime: &now},
				}, metav1.CreateOptions{})
			case err == nil:
				l.Spec.RenewTime = &now
				_, _ = leases.Update(ctx, l, metav1.UpdateOptions{})
			}
			// Other errors (kube-apiserver restarting): the next round renews.
		}
		if !sleepCtx(ctx, nodeLeaseRenew) {
			return
		}
	}
}

// realPodsNotRunning lists the ksched pods on real nodes, not being deleted,
// that are not Running, with what they wait for.
func (o *observer) realPodsNotRunning() []string {
	pods, _ := o.pods.List(labels.Everything())
	var out []string
	for _, p := range pods {
		if !o.real[p.Spec.NodeName] || p.Spec.SchedulerName != harness.ProfileName || p.DeletionTimestamp != nil ||
			p.Status.Phase == corev1.PodRunning {
			continue
		}
		why := string(p.Status.Phase)
		for _, cs := range p.Status.ContainerStatuses {
			if cs.State.Waiting != nil {
				why += " " + cs.State.Waiting.Reason
			}
		}
		out = append(out, fmt.Sprintf("%s on %s (%s)", p.Name, p.Spec.NodeName, why))
	}
	sort.Strings(out)
	return out
}
