package suite

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// kubeletRejections are the reasons a kubelet gives when its own admission
// refuses a pod a scheduler bound to it.
var kubeletRejections = map[string]bool{
	"OutOfcpu": true, "OutOfmemory": true, "OutOfpods": true, "OutOfephemeral-storage": true,
	"NodeAffinity": true, "NodePorts": true, "UnexpectedAdmissionError": true, "PodOSNotSupported": true,
}

// Issue 31 (real nodes): ksched places pods on two real kubelets
// (k8s-up.sh --kubelets 2) and the kubelets, the last word on a placement,
// admit every one. Pods sized to 45% of a node's allocatable CPU pack two
// per node; two pods asking the same hostPort go to different nodes; one
// more big pod fits nowhere and stays Pending with ksched's
// FailedScheduling. ksched only: the default kube-scheduler runs in this
// cluster too, for its own pods.
func TestKschedPlacementsRunOnRealKubelets(t *testing.T) {
	if why := harness.RealNodesMissing(); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	cp := harness.StartControlPlane(t, harness.KSched, harness.WithKubelets(2))
	if out, err := cp.Kubectl("create", "namespace", harness.Namespace); err != nil {
		t.Fatalf("namespace: %v\n%s", err, out)
	}
	d := harness.Deploy(t, cp, harness.KSched, harness.SchedulerOptions{})
	p := d.Start("ksched-0")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- last lines of %s\n%s", p.Name, p.LogTail(60))
		}
	})
	e := &harness.Env{T: t, Ctx: ctx, CP: cp, CS: cp.Admin, Kind: harness.KSched, Sched: d}
	// The ServiceAccount admission plugin refuses pods until the namespace's
	// default ServiceAccount exists.
	e.WaitFor("the test namespace's default ServiceAccount", 30*time.Second, func(ctx context.Context) (bool, error) {
		_, err := e.CS.CoreV1().ServiceAccounts(harness.Namespace).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})

	nodes, err := e.CS.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Fatalf("want the 2 real nodes, got %d (%v)", len(nodes.Items), err)
	}
	allocatable := nodes.Items[0].Status.Allocatable.Cpu().MilliValue()
	big := fmt.Sprintf("%dm", allocatable*45/100)
	image := cp.Env["NODES_IMAGE_BUSYBOX"]
	pod := func(name, cpu string) *corev1.Pod {
		p := harness.NewPod(name, cpu, "16Mi")
		p.Spec.Containers[0].Image = image
		p.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		p.Spec.Containers[0].Command = []string{"sleep", "3600"}
		p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Mi")}
		return p
	}
	packed := []string{"pack-0", "pack-1", "pack-2", "pack-3"}
	for _, n := range packed {
		e.Create(pod(n, big))
	}
	ported := []string{"port-0", "port-1"}
	for _, n := range ported {
		p := pod(n, "10m")
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 18080, Protocol: corev1.ProtocolTCP}}
		e.Create(p)
	}
	running := append(append([]string{}, packed...), ported...)
	e.WaitFor("every placed pod Running on its kubelet", 90*time.Second, func(ctx context.Context) (bool, error) {
		for _, n := range running {
			p, err := e.Pod(n)
			if err != nil {
				return false, err
			}
			if p.Status.Phase == corev1.PodFailed {
				return false, fmt.Errorf("%s failed on %s: %s %s", n, p.Spec.NodeName, p.Status.Reason, p.Status.Message)
			}
			if p.Status.Phase != corev1.PodRunning {
				return false, nil
			}
		}
		return true, nil
	})
	e.Create(pod("too-big", big))
	e.WaitFailedScheduling(60*time.Second, "too-big")

	perNode := map[string][]string{}
	for _, n := range running {
		p, err := e.Pod(n)
		if err != nil {
			t.Fatal(err)
		}
		perNode[p.Spec.NodeName] = append(perNode[p.Spec.NodeName], n)
	}
	for node, pods := range perNode {
		sort.Strings(pods)
		t.Logf("%s runs %v", node, pods)
	}
	for _, node := range []string{"node-1", "node-2"} {
		var packs, ports int
		for _, n := range perNode[node] {
			if n[:4] == "pack" {
				packs++
			} else {
				ports++
			}
		}
		if packs != 2 || ports != 1 {
			t.Errorf("%s: want 2 pack pods and 1 hostPort pod, got %v", node, perNode[node])
		}
	}
	if p, err := e.Pod("too-big"); err != nil || p.Spec.NodeName != "" {
		t.Errorf("too-big was bound (%v): no node has room for it", err)
	}
	events, err := e.CS.CoreV1().Events(harness.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events.Items {
		if kubeletRejections[ev.Reason] {
			t.Errorf("a kubelet rejected %s: %s %s", ev.InvolvedObject.Name, ev.Reason, ev.Message)
		}
	}
}
