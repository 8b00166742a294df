package chaos

import (
	"context"
	"fmt"
	"math/rand"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"ksched.dev/test/k8s/harness"
)

// The cluster the load runs on: baseNodes that stay (zones z0..z2) and
// extra nodes added, cordoned and removed. Sizes keep the steady load
// (deployments, fillers) under the base capacity, so high-priority pods
// fit once they preempt fillers, and a probe always fits.
const (
	baseNodes     = 6
	nodeCPU       = "4"
	nodeMemory    = "8Gi"
	maxFillers    = 24 // 500m each: 12 of the base nodes' 24 CPUs
	maxHigh       = 4  // 1500m each, must preempt fillers
	impossiblePod = "impossible"
	lowClass      = "chaos-low"
	highClass     = "chaos-high"
	storageClass  = "chaos-wffc"
)

// deployments: name, max replicas, cpu, memory, and how the pod template
// constrains placement.
var deploymentSpecs = []struct {
	name string
	max  int32
	cpu  string
	mem  string
}{
	{"web", 8, "200m", "128Mi"},  // zone spreading (DoNotSchedule, maxSkew 2)
	{"api", 6, "250m", "256Mi"},  // required node affinity to z0/z1, preferred anti-affinity
	{"cache", 4, "100m", "64Mi"}, // required pod affinity to web in the zone
	{"ports", 4, "100m", "64Mi"}, // host port 8080
}

// load drives the cluster from a seeded RNG; its counters are for the
// summary. Not safe for concurrent use except Counts.
type load struct {
	cs       kubernetes.Interface
	rng      *rand.Rand
	mu       sync.Mutex
	created  map[string]int
	errors   int
	seq      int
	fillers  []string
	high     []string
	pvcs     []string
	extra    []string // extra nodes
	cordoned map[string]bool
}

func newLoad(cs kubernetes.Interface, seed int64) *load {
	return &load{cs: cs, rng: rand.New(rand.NewSource(seed)), created: map[string]int{}, cordoned: map[string]bool{}}
}

func (l *load) count(kind string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.errors++
		return
	}
	l.created[kind]++
}

// Setup creates the base nodes, priority classes, storage class,
// deployments (at 1 replica) and a pod that fits nowhere.
func (l *load) Setup(ctx context.Context) error {
	for i := 0; i < baseNodes; i++ {
		if err := l.addNode(ctx, fmt.Sprintf("base-%d", i), i%3); err != nil {
			return err
		}
	}
	for _, pc := range []struct {
		name string
		v    int32
	}{{lowClass, 10}, {highClass, 1000}} {
		if _, err := l.cs.SchedulingV1().PriorityClasses().Create(ctx, harness.NewPriorityClass(pc.name, pc.v), metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	if _, err := l.cs.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: storageClass}, Provisioner: harness.FakeProvisioner, VolumeBindingMode: &wffc,
	}, metav1.CreateOptions{}); err != nil {
		return err
	}
	for _, d := range deploymentSpecs {
		if _, err := l.cs.AppsV1().Deployments(harness.Namespace).Create(ctx, deployment(d.name, d.cpu, d.mem), metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	p := harness.NewPod(impossiblePod, "100", "1Gi")
	_, err := l.cs.CoreV1().Pods(harness.Namespace).Create(ctx, p, metav1.CreateOptions{})
	return err
}

func (l *load) addNode(ctx context.Context, name string, zone int) error {
	n := harness.NewNode(name, nodeCPU, nodeMemory, map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("z%d", zone)})
	_, err := l.cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	return err
}

func deployment(name, cpu, mem string) *appsv1.Deployment {
	one := int32(1)
	pod := harness.NewPod("", cpu, mem)
	pod.Labels = map[string]string{"app": name}
	spec := &pod.Spec
	switch name {
	case "web":
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 2, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		}}
	case "api":
		spec.Affinity = &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"z0", "z1"},
				}}}},
			}},
			PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{
					TopologyKey:   "kubernetes.io/hostname",
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
				},
			}}},
		}
	case "cache":
		spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   "topology.kubernetes.io/zone",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}},
		}}
	case "ports":
		spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080, Protocol: corev1.ProtocolTCP}}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: harness.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels}, Spec: pod.Spec},
		},
	}
}

// Step does one random action.
func (l *load) Step(ctx context.Context) {
	l.seq++
	switch r := l.rng.Intn(100); {
	case r < 25:
		d := deploymentSpecs[l.rng.Intn(len(deploymentSpecs))]
		l.scale(ctx, d.name, int32(l.rng.Intn(int(d.max)+1)))
	case r < 50:
		l.filler(ctx)
	case r < 60:
		l.highPod(ctx)
	case r < 72:
		l.pvcPod(ctx)
	case r < 80 && len(l.extra) < 4:
		l.count("node", l.addNode(ctx, fmt.Sprintf("extra-%d", l.seq), l.rng.Intn(3)))
		l.extra = append(l.extra, fmt.Sprintf("extra-%d", l.seq))
	case r < 90:
		all := l.extra
		for i := 0; i < baseNodes; i++ {
			all = append(all, fmt.Sprintf("base-%d", i))
		}
		n := all[l.rng.Intn(len(all))]
		l.setCordon(ctx, n, !l.cordoned[n])
	default:
		if len(l.extra) > 0 {
			i := l.rng.Intn(len(l.extra))
			err := l.cs.CoreV1().Nodes().Delete(ctx, l.extra[i], metav1.DeleteOptions{})
			l.count("node-removed", err)
			delete(l.cordoned, l.extra[i])
			l.extra = append(l.extra[:i], l.extra[i+1:]...)
		}
	}
}

func (l *load) scale(ctx context.Context, name string, n int32) {
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
	_, err := l.cs.AppsV1().Deployments(harness.Namespace).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	l.count("scale", err)
}

func (l *load) setCordon(ctx context.Context, node string, on bool) {
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, on)
	_, err := l.cs.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if err == nil {
		l.cordoned[node] = on
	}
	l.count("cordon", err)
}

// filler is a low-priority pod; the oldest goes when there are maxFillers.
func (l *load) filler(ctx context.Context) {
	name := fmt.Sprintf("filler-%d", l.seq)
	p := harness.NewPod(name, "500m", "256Mi")
	p.Spec.PriorityClassName = lowClass
	_, err := l.cs.CoreV1().Pods(harness.Namespace).Create(ctx, p, metav1.CreateOptions{})
	l.count("filler", err)
	if err == nil {
		l.fillers = append(l.fillers, name)
	}
	for len(l.fillers) > maxFillers {
		_ = l.cs.CoreV1().Pods(harness.Namespace).Delete(ctx, l.fillers[0], metav1.DeleteOptions{})
		l.fillers = l.fillers[1:]
	}
}

// highPod needs 1500m: on a busy cluster it preempts fillers.
func (l *load) highPod(ctx context.Context) {
	name := fmt.Sprintf("high-%d", l.seq)
	p := harness.NewPod(name, "1500m", "512Mi")
	p.Spec.PriorityClassName = highClass
	_, err := l.cs.CoreV1().Pods(harness.Namespace).Create(ctx, p, metav1.CreateOptions{})
	l.count("high", err)
	if err == nil {
		l.high = append(l.high, name)
	}
	for len(l.high) > maxHigh {
		_ = l.cs.CoreV1().Pods(harness.Namespace).Delete(ctx, l.high[0], metav1.DeleteOptions{})
		l.high = l.high[1:]
	}
}

// pvcPod is a pod with a WaitForFirstConsumer claim the fake provisioner
// provisions on the node ksched selects; it is deleted (with its claim)
// after a few more steps, keeping at most 6.
func (l *load) pvcPod(ctx context.Context) {
	name := fmt.Sprintf("pvc-%d", l.seq)
	class := storageClass
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: harness.Namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := l.cs.CoreV1().PersistentVolumeClaims(harness.Namespace).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		l.count("pvc", err)
		return
	}
	p := harness.NewPod(name, "100m", "64Mi")
	p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name},
	}}}
	_, err := l.cs.CoreV1().Pods(harness.Namespace).Create(ctx, p, metav1.CreateOptions{})
	l.count("pvc", err)
	if err == nil {
		l.pvcs = append(l.pvcs, name)
	}
	for len(l.pvcs) > 6 {
		_ = l.cs.CoreV1().Pods(harness.Namespace).Delete(ctx, l.pvcs[0], metav1.DeleteOptions{})
		_ = l.cs.CoreV1().PersistentVolumeClaims(harness.Namespace).Delete(ctx, l.pvcs[0], metav1.DeleteOptions{})
		l.pvcs = l.pvcs[1:]
	}
}

// Quiesce makes the end state schedulable: every node uncordoned, pending
// fillers deleted (they are the load meant to exceed capacity).
func (l *load) Quiesce(ctx context.Context, pending []*corev1.Pod) {
	for n, on := range l.cordoned {
		if on {
			l.setCordon(ctx, n, false)
		}
	}
	for _, p := range pending {
		if p.Spec.PriorityClassName == lowClass || l.claimOnRemovedNode(ctx, p) {
			_ = l.cs.CoreV1().Pods(harness.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
		}
	}
}

// claimOnRemovedNode: the pod's claim is bound to a local PV on a node the
// load removed, so the pod fits nowhere any more (as on a real cluster).
func (l *load) claimOnRemovedNode(ctx context.Context, p *corev1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		pvc, err := l.cs.CoreV1().PersistentVolumeClaims(p.Namespace).Get(ctx, v.PersistentVolumeClaim.ClaimName, metav1.GetOptions{})
		if err != nil || pvc.Spec.VolumeName == "" {
			continue
		}
		pv, err := l.cs.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
		if err != nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				for _, node := range e.Values {
					if _, err := l.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); apierrors.IsNotFound(err) {
						return true
					}
				}
			}
		}
	}
	return false
}

// Counts is what was created, by kind, and how many API calls failed.
func (l *load) Counts() (map[string]int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.created {
		out[k] = v
	}
	return out, l.errors
}
