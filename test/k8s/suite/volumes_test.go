package suite

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

func storageClass(name, provisioner string) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       provisioner,
		VolumeBindingMode: &mode,
	}
}

func claim(name, class string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: harness.Namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			},
		},
	}
}

func podWithClaim(name, claimName string) *corev1.Pod {
	p := harness.NewPod(name, "100m", "64Mi")
	p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName},
	}}}
	return p
}

func claimBound(e *harness.Env, name string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		c, err := e.CS.CoreV1().PersistentVolumeClaims(harness.Namespace).Get(ctx, name, metav1.GetOptions{})
		return err == nil && c.Status.Phase == corev1.ClaimBound, err
	}
}

func pvAvailable(e *harness.Env, name string) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		v, err := e.CS.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
		return err == nil && v.Status.Phase == corev1.VolumeAvailable, err
	}
}

// A local PV that only node-b reaches forces the pod there: the scheduler
// binds the claim to it (an API write its RBAC must allow) and the real PV
// controller completes the binding.
func TestStaticLocalPersistentVolume(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "4", "8Gi", nil), harness.NewNode("node-b", "4", "8Gi", nil))
			e.Create(storageClass("local", "kubernetes.io/no-provisioner"))
			e.Create(&corev1.PersistentVolume{
				ObjectMeta: metav1.ObjectMeta{Name: "local-b"},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
					AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
					StorageClassName:              "local",
					PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
					NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
							Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-b"},
						}}}},
					}},
				},
			})
			// A new PV is Pending until the PV controller marks it Available,
			// and both schedulers skip PVs that are not Available: a pod
			// created sooner fails once or not, depending on who is faster.
			e.WaitFor("PV local-b Available", 60*time.Second, pvAvailable(e, "local-b"))
			e.Create(claim("data", "local"), podWithClaim("app", "data"))
			e.WaitBound(60*time.Second, "app")
			e.WaitFor("claim data bound", 60*time.Second, claimBound(e, "data"))
			o := e.Outcome(2 * time.Second)
			if p := o["test/app"]; p.Node != "node-b" {
				e.T.Errorf("app: want node-b (the only node its volume reaches), got %+v", p)
			}
			return o
		},
	})
}

// WaitForFirstConsumer dynamic provisioning: the scheduler picks the node,
// writes it on the claim, the provisioner (played by the harness) creates a
// PV there and the real PV controller binds it; only then is the pod bound.
func TestWaitForFirstConsumerProvisioning(t *testing.T) {
	nodes := []string{"node-a", "node-b"}
	harness.RunDifferential(t, harness.Scenario{
		Placements: map[string]harness.Placement{"test/app": {BestNodes: nodes}},
		Run: func(e *harness.Env) harness.Outcome {
			for _, n := range nodes {
				e.Create(harness.NewNode(n, "4", "8Gi", nil))
			}
			e.Create(storageClass("fast", harness.FakeProvisioner))
			e.Create(claim("data", "fast"), podWithClaim("app", "data"))
			e.WaitBound(90*time.Second, "app")
			e.WaitFor("claim data bound", 30*time.Second, claimBound(e, "data"))
			o := e.Outcome(2 * time.Second)
			c, err := e.CS.CoreV1().PersistentVolumeClaims(harness.Namespace).Get(e.Ctx, "data", metav1.GetOptions{})
			if err != nil {
				e.T.Fatal(err)
			}
			if sel := c.Annotations["volume.kubernetes.io/selected-node"]; sel != o["test/app"].Node {
				e.T.Errorf("claim's selected node %q, pod bound to %q", sel, o["test/app"].Node)
			}
			return o
		},
	})
}
