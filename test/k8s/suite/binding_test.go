package suite

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

// manualProvisioner names a StorageClass provisioner nobody plays: the
// scenario provisions its claim itself, when it chooses.
const manualProvisioner = "example.com/manual-provisioner"

// Another binder binds the pod while the scheduler waits in VolumeBinding's
// PreBind for the claim's provisioning; the scheduler's own binding then
// answers 409 "already assigned". kube-scheduler handles that as any binding
// error: FailedScheduling Event and PodScheduled=False (SchedulerError) on
// the pod that is, by then, bound. One node, so the conflict's message names
// the same node in both runs.
func TestBindingConflictIsABindingError(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "4", "8Gi", nil))
			e.Create(storageClass("manual", manualProvisioner))
			e.Create(claim("data", "manual"), podWithClaim("app", "data"))

			// The scheduler has chosen the node and waits at PreBind.
			var selected string
			e.WaitFor("claim data's selected node", 60*time.Second, func(ctx context.Context) (bool, error) {
				c, err := e.CS.CoreV1().PersistentVolumeClaims(harness.Namespace).Get(ctx, "data", metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				selected = c.Annotations["volume.kubernetes.io/selected-node"]
				return selected != "", nil
			})
			if err := e.CS.CoreV1().Pods(harness.Namespace).Bind(e.Ctx, &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: harness.Namespace, Name: "app"},
				Target:     corev1.ObjectReference{Kind: "Node", Name: selected},
			}, metav1.CreateOptions{}); err != nil {
				e.T.Fatalf("binding app as the other binder: %v", err)
			}
			c, err := e.CS.CoreV1().PersistentVolumeClaims(harness.Namespace).Get(e.Ctx, "data", metav1.GetOptions{})
			if err != nil {
				e.T.Fatal(err)
			}
			e.Create(provisionedVolume(c, selected))
			e.WaitFor("claim data bound", 60*time.Second, claimBound(e, "data"))
			e.WaitFor("the scheduler's FailedScheduling for app", 60*time.Second, func(ctx context.Context) (bool, error) {
				evs, err := e.CS.CoreV1().Events(harness.Namespace).List(ctx, metav1.ListOptions{})
				if err != nil {
					return false, err
				}
				for _, ev := range evs.Items {
					if ev.InvolvedObject.Name == "app" && ev.Reason == "FailedScheduling" {
						return true, nil
					}
				}
				return false, nil
			})
			o := e.Outcome(3 * time.Second)
			app := o["test/app"]
			if app.Node != selected {
				e.T.Errorf("app: want on %s (the other binder's choice), got %+v", selected, app)
			}
			if app.ConditionReason != "SchedulerError" || !strings.Contains(app.ConditionMessage, "already assigned") {
				e.T.Errorf("app: want PodScheduled=False SchedulerError with the 409's message, got %+v", app)
			}
			if app.ScheduledEvents != 0 {
				e.T.Errorf("app: the scheduler's binding failed, yet %d Scheduled events", app.ScheduledEvents)
			}
			return o
		},
	})
}

// provisionedVolume is the PV a provisioner creates for the claim on the
// node: local, pre-bound to the claim for the PV controller to bind.
func provisionedVolume(c *corev1.PersistentVolumeClaim, node string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "pvc-" + string(c.UID),
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": manualProvisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   c.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              *c.Spec.StorageClassName,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/" + c.Name}},
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: c.Namespace, Name: c.Name, UID: c.UID,
			},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node},
				}}}},
			}},
		},
	}
}
