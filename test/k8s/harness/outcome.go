package harness

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// PodOutcome is what a scheduler did to one pod, in the fields the two
// schedulers are compared by.
type PodOutcome struct {
	Exists    bool   // false: deleted (a preemption victim, say)
	Node      string // spec.nodeName
	Nominated string // status.nominatedNodeName
	// The PodScheduled condition ("" when absent).
	ConditionStatus, ConditionReason, ConditionMessage string
	// Distinct messages of the pod's FailedScheduling Events, sorted.
	FailedScheduling []string
	// How many Scheduled Events name the pod (a pod bound once has one).
	ScheduledEvents int
	// Distinct reasons of the other Events about the pod (Preempted, ...),
	// sorted: how often one is repeated depends on timing.
	OtherEvents []string
}

// Outcome maps "namespace/name" to what happened to that pod.
type Outcome map[string]PodOutcome

var uidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// CollectOutcome reads the pods of the namespace and their Events. Pods in
// `tracked` that no longer exist are reported with Exists=false.
func CollectOutcome(ctx context.Context, cs kubernetes.Interface, namespace string, tracked ...string) (Outcome, error) {
	out := Outcome{}
	for _, name := range tracked {
		out[namespace+"/"+name] = PodOutcome{}
	}
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		o := PodOutcome{Exists: true, Node: p.Spec.NodeName, Nominated: p.Status.NominatedNodeName}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				o.ConditionStatus, o.ConditionReason, o.ConditionMessage = string(c.Status), c.Reason, c.Message
			}
		}
		out[p.Namespace+"/"+p.Name] = o
	}
	events, err := cs.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	failed := map[string]map[string]bool{}
	for _, e := range events.Items {
		if e.InvolvedObject.Kind != "Pod" {
			continue
		}
		key := e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name
		o, ok := out[key]
		if !ok {
			continue
		}
		switch e.Reason {
		case "FailedScheduling":
			if failed[key] == nil {
				failed[key] = map[string]bool{}
			}
			failed[key][uidPattern.ReplaceAllString(e.Message, "<uid>")] = true
		case "Scheduled":
			o.ScheduledEvents++
		default:
			if !contains(o.OtherEvents, e.Reason) {
				o.OtherEvents = append(o.OtherEvents, e.Reason)
			}
		}
		out[key] = o
	}
	for key, msgs := range failed {
		o := out[key]
		for m := range msgs {
			o.FailedScheduling = append(o.FailedScheduling, m)
		}
		sort.Strings(o.FailedScheduling)
		out[key] = o
	}
	for key, o := range out {
		sort.Strings(o.OtherEvents)
		out[key] = o
	}
	return out, nil
}

// PodExists reports whether the pod is still there.
func PodExists(ctx context.Context, cs kubernetes.Interface, namespace, name string) (bool, error) {
	_, err := cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Placement says how a pod's node is compared between the schedulers.
type Placement struct {
	// Nodes the pod may land on: every best node when the scores tie, so
	// either scheduler's random tie-break is accepted. Empty: any node (only
	// bound versus pending is compared).
	BestNodes []string
}

// Divergence is one field in which the schedulers' outcomes differ.
type Divergence struct {
	Pod, Field, KSched, KubeScheduler string
}

func (d Divergence) String() string {
	return fmt.Sprintf("%s %s: ksched %q, kube-scheduler %q", d.Pod, d.Field, d.KSched, d.KubeScheduler)
}

// Compare lists the fields in which ksched's outcome differs from
// kube-scheduler's. A node is compared exactly when the placement is forced
// (one best node or nodes not listed); otherwise each must be one of the
// pod's best nodes.
func Compare(ksched, kube Outcome, placements map[string]Placement) []Divergence {
	var out []Divergence
	keys := map[string]bool{}
	for k := range ksched {
		keys[k] = true
	}
	for k := range kube {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, pod := range sorted {
		a, b := ksched[pod], kube[pod]
		add := func(field, x, y string) {
			if x != y {
				out = append(out, Divergence{pod, field, x, y})
			}
		}
		add("exists", fmt.Sprint(a.Exists), fmt.Sprint(b.Exists))
		best := placements[pod].BestNodes
		if p, ok := placements[pod]; ok && len(p.BestNodes) != 1 {
			add("bound", fmt.Sprint(a.Node != ""), fmt.Sprint(b.Node != ""))
			for _, o := range []struct {
				who, node string
			}{{"ksched", a.Node}, {"kube-scheduler", b.Node}} {
				if o.node != "" && len(best) > 0 && !contains(best, o.node) {
					out = append(out, Divergence{pod, "node not among the best " + strings.Join(best, ","), a.Node, b.Node})
					break
				}
			}
		} else {
			add("node", a.Node, b.Node)
		}
		add("nominatedNodeName", a.Nominated, b.Nominated)
		add("PodScheduled.status", a.ConditionStatus, b.ConditionStatus)
		add("PodScheduled.reason", a.ConditionReason, b.ConditionReason)
		add("PodScheduled.message", a.ConditionMessage, b.ConditionMessage)
		add("FailedScheduling events", strings.Join(a.FailedScheduling, " | "), strings.Join(b.FailedScheduling, " | "))
		add("Scheduled events", fmt.Sprint(a.ScheduledEvents), fmt.Sprint(b.ScheduledEvents))
		add("other events", strings.Join(a.OtherEvents, ","), strings.Join(b.OtherEvents, ","))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// KnownDivergence is a row of docs/conformance.md's table of divergences
// that are understood: the scenario (test name), the pod and the field.
type KnownDivergence struct {
	Scenario, Pod, Field, Cause string
}

// KnownDivergences reads the rows of "## Known divergences" in
// docs/conformance.md (`| minor | scenario | pod | field | cause |`) that
// apply at `minor`.
func KnownDivergences(minor string) ([]KnownDivergence, error) {
	rows, err := ConformanceTable("Known divergences", 5)
	if err != nil {
		return nil, err
	}
	var out []KnownDivergence
	for _, r := range rows {
		if MinorMatches(r[0], minor) && r[4] != "" {
			out = append(out, KnownDivergence{r[1], r[2], r[3], r[4]})
		}
	}
	return out, nil
}

// Unexplained keeps the divergences that docs/conformance.md does not list
// for the scenario. A row's pod may end in "*" to name every pod with that
// prefix.
func Unexplained(scenario string, divs []Divergence, known []KnownDivergence) []Divergence {
	var out []Divergence
	for _, d := range divs {
		explained := false
		for _, k := range known {
			pod := k.Pod == d.Pod || strings.HasSuffix(k.Pod, "*") && strings.HasPrefix(d.Pod, strings.TrimSuffix(k.Pod, "*"))
			if k.Scenario == scenario && pod && strings.HasPrefix(d.Field, k.Field) {
				explained = true
				break
			}
		}
		if !explained {
			out = append(out, d)
		}
	}
	return out
}
