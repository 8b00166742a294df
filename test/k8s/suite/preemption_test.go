package suite

import (
	"context"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"ksched.dev/test/k8s/harness"
)

// Two full nodes; the pods on node-a are protected by a PodDisruptionBudget
// that allows no disruption (the real disruption controller computes it), so
// a high-priority pod preempts the pods on node-b: they are deleted, the
// preemptor is nominated there and then bound there.
func TestPreemptionHonoursPodDisruptionBudget(t *testing.T) {
	victims := []string{"a-0", "a-1", "b-0", "b-1"}
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewPriorityClass("low", 100), harness.NewPriorityClass("high", 1000))
			e.Create(harness.NewNode("node-a", "2", "8Gi", nil), harness.NewNode("node-b", "2", "8Gi", nil))
			for _, name := range victims {
				p := harness.NewPod(name, "1", "1Gi")
				p.Spec.PriorityClassName = "low"
				p.Spec.NodeName = "node-" + name[:1]
				p.Labels["app"] = "protected"
				if name[0] == 'b' {
					p.Labels["app"] = "free"
				}
				e.Create(p)
			}
			min := intstr.FromInt32(2)
			e.Create(&policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Name: "protected", Namespace: harness.Namespace},
				Spec: policyv1.PodDisruptionBudgetSpec{
					MinAvailable: &min,
					Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "protected"}},
				},
			})
			e.WaitFor("the PDB's status (2 healthy, 0 disruptions allowed)", 60*time.Second, func(ctx context.Context) (bool, error) {
				pdb, err := e.CS.PolicyV1().PodDisruptionBudgets(harness.Namespace).Get(ctx, "protected", metav1.GetOptions{})
				return err == nil && pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.CurrentHealthy == 2 &&
					pdb.Status.DisruptionsAllowed == 0, err
			})
			pre := harness.NewPod("preemptor", "2", "1Gi")
			pre.Spec.PriorityClassName = "high"
			e.Create(pre)
			e.WaitBound(60*time.Second, "preemptor")
			o := e.Outcome(2*time.Second, victims...)
			if p := o["test/preemptor"]; p.Node != "node-b" {
				e.T.Errorf("preemptor: want node-b (node-a's pods are protected), got %+v", p)
			}
			for _, v := range victims {
				if gone := !o["test/"+v].Exists; gone != (v[0] == 'b') {
					e.T.Errorf("%s: deleted=%v, want deleted only on node-b", v, gone)
				}
			}
			return o
		},
	})
}
