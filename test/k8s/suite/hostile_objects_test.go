package suite

// The extreme objects of TestHostileObjects (hostile_test.go).

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// The limits kube-apiserver v1.37 puts on what these objects may hold (found
// by probing it; see docs/reliability.md, "Hostile objects"): annotations
// total at most 256 KiB (keys and values), a label value 63 bytes and a key
// 253 + 1 + 63; a request body 3 MiB; an object as etcd stores it 1.5 MiB.
// There is no limit on the number of labels, taints, tolerations, affinity
// terms, spread constraints, selector expressions or containers: only the
// size caps them.
const annotationsLimit = 256 << 10

// A label key prefix of 200 bytes, so a label with a full value is ~280
// bytes and 3000 of them about 850 KB.
var hostilePrefix = strings.Repeat("h", 200) + ".example.com"

func hostileKey(i int) string { return fmt.Sprintf("%s/k-%d", hostilePrefix, i) }

var fullValue = strings.Repeat("v", 63)

// hostileCase is one extreme object and the verdict it must get.
type hostileCase struct {
	kind string
	// A Node: its verdict is pod's, a probe bound to it (the time includes
	// the scheduler's seeing the Node).
	node *corev1.Node
	pod  *corev1.Pod // the pod whose verdict is measured
	want string      // "bound" or "unschedulable"
}

func hostileNodes() []hostileCase {
	// ~1.1 MB of metadata: 3000 labels of ~280 bytes and annotations at the
	// 256 KiB cap.
	labels := harness.NewNode("node-labels", "8", "16Gi", nil)
	for i := 0; i < 3000; i++ {
		labels.Labels[hostileKey(i)] = fullValue
	}
	labels.Annotations = map[string]string{"hostile/a": strings.Repeat("a", annotationsLimit-len("hostile/a"))}
	// 5000 NoSchedule taints: only a pod tolerating them all lands here.
	taints := harness.NewNode("node-taints", "8", "16Gi", nil)
	for i := 0; i < 5000; i++ {
		taints.Spec.Taints = append(taints.Spec.Taints, corev1.Taint{Key: fmt.Sprintf("t-%d", i), Effect: corev1.TaintEffectNoSchedule})
	}
	var cases []hostileCase
	for _, n := range []*corev1.Node{labels, taints} {
		probe := harness.NewPod("probe-"+n.Name, "10m", "16Mi")
		probe.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": n.Name}
		probe.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		cases = append(cases, hostileCase{kind: "node " + n.Name, node: n, pod: probe, want: "bound"})
	}
	return cases
}

func hostilePods() []hostileCase {
	var cases []hostileCase
	add := func(kind, want string, p *corev1.Pod) {
		cases = append(cases, hostileCase{kind: kind, pod: p, want: want})
	}

	// Metadata: annotations at the cap, and ~700 KB of labels (which have
	// no total cap). The anchor the affinity pod below follows.
	meta := harness.NewPod("meta-anchor", "10m", "16Mi")
	meta.Labels["hostile"] = "anchor"
	for i := 0; i < 2500; i++ {
		meta.Labels[hostileKey(i)] = fullValue
	}
	meta.Annotations = map[string]string{"hostile/a": strings.Repeat("a", annotationsLimit-len("hostile/a"))}
	add("256 KiB annotations + 2500 labels", "bound", meta)

	// 5000 tolerations, one per taint of node-taints, and a selector for it:
	// 5000 x 5000 toleration checks.
	tol := harness.NewPod("tolerations", "10m", "16Mi")
	for i := 0; i < 5000; i++ {
		tol.Spec.Tolerations = append(tol.Spec.Tolerations, corev1.Toleration{Key: fmt.Sprintf("t-%d", i),
			Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule})
	}
	tol.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-taints"}
	add("5000 tolerations", "bound", tol)

	// 5000 required node-affinity terms of 10 values each, only the last of
	// which a node (node-labels) matches; 1000 preferred terms.
	nodeAffinity := func(name string, matchLast bool) *corev1.Pod {
		p := harness.NewPod(name, "10m", "16Mi")
		var terms []corev1.NodeSelectorTerm
		for i := 0; i < 5000; i++ {
			var values []string
			for j := 0; j < 10; j++ {
				values = append(values, fmt.Sprintf("x-%d", j))
			}
			terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: fmt.Sprintf("absent-%d", i), Operator: corev1.NodeSelectorOpIn, Values: values}}})
		}
		if matchLast {
			terms[len(terms)-1].MatchExpressions = append(terms[len(terms)-1].MatchExpressions[:0],
				corev1.NodeSelectorRequirement{Key: hostileKey(0), Operator: corev1.NodeSelectorOpIn, Values: []string{fullValue}})
		}
		var preferred []corev1.PreferredSchedulingTerm
		for i := 0; i < 1000; i++ {
			preferred = append(preferred, corev1.PreferredSchedulingTerm{Weight: 1, Preference: corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: hostileKey(i), Operator: corev1.NodeSelectorOpExists}}}})
		}
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  &corev1.NodeSelector{NodeSelectorTerms: terms},
			PreferredDuringSchedulingIgnoredDuringExecution: preferred,
		}}
		return p
	}
	add("5000 node-affinity terms (last matches)", "bound", nodeAffinity("node-affinity", true))
	add("5000 node-affinity terms (none match)", "unschedulable", nodeAffinity("node-affinity-none", false))

	// 2000 required and 2000 preferred anti-affinity terms that select no
	// pod: once bound, every later pod is checked against its terms.
	anti := harness.NewPod("anti-affinity", "10m", "16Mi")
	var required []corev1.PodAffinityTerm
	var preferred []corev1.WeightedPodAffinityTerm
	for i := 0; i < 2000; i++ {
		term := corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: fmt.Sprintf("hostile-%d", i), Operator: metav1.LabelSelectorOpExists}}}}
		required = append(required, term)
		preferred = append(preferred, corev1.WeightedPodAffinityTerm{Weight: 100, PodAffinityTerm: term})
	}
	anti.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: required, PreferredDuringSchedulingIgnoredDuringExecution: preferred}}
	add("2000+2000 pod anti-affinity terms", "bound", anti)

	// 1000 required affinity terms, all satisfied by meta-anchor's node.
	aff := harness.NewPod("affinity", "10m", "16Mi")
	var affTerms []corev1.PodAffinityTerm
	for i := 0; i < 1000; i++ {
		affTerms = append(affTerms, corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"hostile": "anchor", hostileKey(i): fullValue}}})
	}
	aff.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: affTerms}}
	add("1000 pod affinity terms", "bound", aff)

	// A long selector: 100 expressions of 500 values; every pod of the
	// scenario passes the first 99 (NotIn) and fails the last, so each
	// check reads the whole selector. Required anti-affinity (then checked
	// against every later pod) and a preferred affinity term.
	long := harness.NewPod("long-selector", "10m", "16Mi")
	var exprs []metav1.LabelSelectorRequirement
	for i := 0; i < 99; i++ {
		var values []string
		for j := 0; j < 500; j++ {
			values = append(values, fmt.Sprintf("no-%d-%d", i, j))
		}
		exprs = append(exprs, metav1.LabelSelectorRequirement{Key: "pod", Operator: metav1.LabelSelectorOpNotIn, Values: values})
	}
	exprs = append(exprs, metav1.LabelSelectorRequirement{Key: "hostile-long", Operator: metav1.LabelSelectorOpExists})
	longTerm := corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchExpressions: exprs}}
	long.Spec.Affinity = &corev1.Affinity{
		PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{longTerm}},
		PodAffinity:     &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: longTerm}}},
	}
	add("selector of 100 expressions x 500 values", "bound", long)

	// 1000 spread constraints over 500 topology keys only node-labels has
	// (DoNotSchedule and ScheduleAnyway on each).
	spread := harness.NewPod("spread", "10m", "16Mi")
	for i := 0; i < 500; i++ {
		for _, w := range []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway} {
			spread.Spec.TopologySpreadConstraints = append(spread.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: hostileKey(i), WhenUnsatisfiable: w,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"pod": "spread"}}})
		}
	}
	add("1000 topology spread constraints", "bound", spread)

	// 500 containers and 500 init containers, each with requests.
	containers := func(name, cpu string) *corev1.Pod {
		p := harness.NewPod(name, "", "")
		p.Spec.Containers = nil
		for i := 0; i < 500; i++ {
			req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Mi")}
			c := corev1.Container{Name: fmt.Sprintf("c-%d", i), Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: req}}
			p.Spec.Containers = append(p.Spec.Containers, c)
			c.Name = fmt.Sprintf("init-%d", i)
			p.Spec.InitContainers = append(p.Spec.InitContainers, c)
		}
		return p
	}
	add("500 containers + 500 init containers", "bound", containers("containers", "1m"))
	add("500 containers, 50 CPU in all", "unschedulable", containers("containers-too-big", "100m"))
	return cases
}

// withSuffix renames the cases' pods and nodes (and the node selectors
// that name those nodes) for another round of the same objects.
func withSuffix(cases []hostileCase, suffix string) []hostileCase {
	if suffix == "" {
		return cases
	}
	for _, c := range cases {
		c.pod.Name += suffix
		if h, ok := c.pod.Spec.NodeSelector["kubernetes.io/hostname"]; ok {
			c.pod.Spec.NodeSelector["kubernetes.io/hostname"] = h + suffix
		}
		if c.node != nil {
			c.node.Name += suffix
			c.node.Labels["kubernetes.io/hostname"] = c.node.Name
		}
	}
	return cases
}

// hostileCases are the extreme Nodes and pods, in creation order, named
// for a round ("" for the first).
func hostileCases(round int) []hostileCase {
	suffix := ""
	if round > 0 {
		suffix = fmt.Sprintf("-r%d", round)
	}
	return withSuffix(append(hostileNodes(), hostilePods()...), suffix)
}
