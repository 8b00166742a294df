package suite

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"ksched.dev/test/k8s/harness"
)

// Pod-level requests (PodLevelResources, on in v1.34) replace the
// containers' sum: a pod whose containers ask for little but whose pod-level
// cpu request is 3 fits only the 4-cpu node, though scoring the containers'
// requests alone would prefer the other.
func TestPodLevelRequestsDecideTheFit(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Placements: map[string]harness.Placement{"test/pod-level": {BestNodes: []string{"node-cpu"}}},
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-cpu", "4", "2Gi", nil), harness.NewNode("node-mem", "2", "16Gi", nil))
			p := harness.NewPod("pod-level", "100m", "100Mi")
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("1Gi")}}
			e.Create(p)
			// More than either node holds at pod level: unschedulable.
			big := harness.NewPod("too-big", "100m", "100Mi")
			big.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("5")}}
			e.Create(big)
			e.WaitBound(30*time.Second, "pod-level")
			e.WaitUnschedulable(30*time.Second, "too-big")
			o := e.Outcome(2 * time.Second)
			if got := o["test/pod-level"].Node; got != "node-cpu" {
				e.T.Errorf("pod-level: want node-cpu (the only node with 3 cpu), got %q", got)
			}
			return o
		},
	})
}

// A bound pod whose resize down is not applied yet still holds its old size:
// its container status reports 2500m while its spec asks 500m, so a 1-cpu
// pod does not fit the node. When the kubelet reports the resize applied,
// the pod-update event (a scale-down) makes the pending pod schedulable at
// once.
func TestResizedPodHoldsItsStatusResources(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "3", "8Gi", nil))
			resized := harness.NewPod("resized", "500m", "128Mi")
			resized.Spec.NodeName = "node-a"
			e.Create(resized)
			setStatusRequests := func(cpu string) {
				e.T.Helper()
				err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
					cur, err := e.Pod("resized")
					if err != nil {
						return err
					}
					req := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu),
						corev1.ResourceMemory: resource.MustParse("128Mi")}
					cur.Status.ContainerStatuses = []corev1.ContainerStatus{{
						Name: "c", Image: cur.Spec.Containers[0].Image, Ready: true,
						State:              corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}},
						AllocatedResources: req,
						Resources:          &corev1.ResourceRequirements{Requests: req},
					}}
					_, err = e.CS.CoreV1().Pods(harness.Namespace).UpdateStatus(e.Ctx, cur, metav1.UpdateOptions{})
					return err
				})
				if err != nil {
					e.T.Fatalf("updating the status of resized: %v", err)
				}
			}
			// The fake kubelet starts the pod first; the status set after it.
			e.WaitFor("resized Running", 30*time.Second, func(context.Context) (bool, error) {
				p, err := e.Pod("resized")
				return err == nil && p.Status.Phase == corev1.PodRunning, err
			})
			setStatusRequests("2500m")
			e.Create(harness.NewPod("newcomer", "1", "128Mi"))
			e.WaitUnschedulable(30*time.Second, "newcomer")
			before := e.Outcome(time.Second)
			if p := before["test/newcomer"]; p.Node != "" {
				e.T.Errorf("newcomer: want pending while resized holds 2500m, got bound to %s", p.Node)
			}
			setStatusRequests("500m")
			// Well within the 5 minutes an unschedulable pod waits without an event.
			e.WaitBound(30*time.Second, "newcomer")
			after := e.Outcome(2 * time.Second)
			out := harness.Outcome{}
			for k, v := range before {
				out["before-resize:"+k] = v
			}
			for k, v := range after {
				out[k] = v
			}
			return out
		},
	})
}

// PodTopologySpread's system default constraints (no constraints on the
// pods, default profile) count the pods of the Services selecting the pod:
// zone-a already runs two pods of Service web, zone-b one larger pod of
// another app, so the next web pod goes to zone-b, though resource scoring
// alone prefers the less loaded zone-a nodes.
func TestDefaultSpreadSelectsThroughServices(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Placements: map[string]harness.Placement{"test/web-new": {BestNodes: []string{"node-b1"}}},
		Run: func(e *harness.Env) harness.Outcome {
			zone := func(z string) map[string]string { return map[string]string{"topology.kubernetes.io/zone": z} }
			e.Create(harness.NewNode("node-a1", "4", "8Gi", zone("zone-a")),
				harness.NewNode("node-a2", "4", "8Gi", zone("zone-a")),
				harness.NewNode("node-b1", "4", "8Gi", zone("zone-b")))
			e.Create(&corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: harness.Namespace},
				Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
					Ports: []corev1.ServicePort{{Port: 80}}},
			})
			existing := func(name, app, node, cpu, memory string) *corev1.Pod {
				p := harness.NewPod(name, cpu, memory)
				p.Labels["app"] = app
				p.Spec.NodeName = node
				return p
			}
			e.Create(existing("web-0", "web", "node-a1", "500m", "512Mi"),
				existing("web-1", "web", "node-a2", "500m", "512Mi"),
				existing("other-0", "other", "node-b1", "1", "1Gi"))
			e.WaitFor("the existing pods Running", 30*time.Second, func(context.Context) (bool, error) {
				for _, n := range []string{"web-0", "web-1", "other-0"} {
					if p, err := e.Pod(n); err != nil || p.Status.Phase != corev1.PodRunning {
						return false, err
					}
				}
				return true, nil
			})
			p := harness.NewPod("web-new", "500m", "512Mi")
			p.Labels["app"] = "web"
			e.Create(p)
			e.WaitBound(30*time.Second, "web-new")
			o := e.Outcome(2 * time.Second)
			if got := o["test/web-new"].Node; got != "node-b1" {
				e.T.Errorf("web-new: want node-b1 (zone-b has no web pod), got %q", got)
			}
			return o
		},
	})
}
