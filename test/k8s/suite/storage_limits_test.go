package suite

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ksched.dev/test/k8s/harness"
)

func sizedClaim(name, class, size string) *corev1.PersistentVolumeClaim {
	c := claim(name, class)
	c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
	return c
}

// capacityOn is what a local-storage CSI driver publishes for the class on
// one node (its topology segment is the node's hostname).
func capacityOn(name, class, node, capacity string) *storagev1.CSIStorageCapacity {
	q := resource.MustParse(capacity)
	return &storagev1.CSIStorageCapacity{
		ObjectMeta:       metav1.ObjectMeta{Name: name, Namespace: harness.Namespace},
		StorageClassName: class,
		NodeTopology:     &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/hostname": node}},
		Capacity:         &q,
	}
}

// A WaitForFirstConsumer claim of a CSI driver with storageCapacity: true
// (TopoLVM, OpenEBS LVM, ...) only fits nodes whose topology segment has a
// CSIStorageCapacity of the class with room for it: 2Gi goes to node-b, the
// only segment with 4Gi; 8Gi fits nowhere and the pod stays pending ("did
// not have enough free storage") until node-a's capacity grows, which
// requeues it.
func TestStorageCapacityTracking(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "4", "8Gi", nil), harness.NewNode("node-b", "4", "8Gi", nil))
			tracked := true
			e.Create(&storagev1.CSIDriver{
				ObjectMeta: metav1.ObjectMeta{Name: harness.FakeCSIDriver},
				Spec:       storagev1.CSIDriverSpec{StorageCapacity: &tracked},
			})
			e.Create(storageClass("lvm", harness.FakeCSIDriver))
			e.Create(capacityOn("lvm-node-a", "lvm", "node-a", "1Gi"), capacityOn("lvm-node-b", "lvm", "node-b", "4Gi"))

			e.Create(sizedClaim("small", "lvm", "2Gi"), podWithClaim("app", "small"))
			e.WaitBound(90*time.Second, "app")
			e.WaitFor("claim small bound", 30*time.Second, claimBound(e, "small"))

			e.Create(sizedClaim("large", "lvm", "8Gi"), podWithClaim("big", "large"))
			e.WaitUnschedulable(60*time.Second, "big")
			pending := e.Outcome(2*time.Second, "big")

			c, err := e.CS.StorageV1().CSIStorageCapacities(harness.Namespace).Get(e.Ctx, "lvm-node-a", metav1.GetOptions{})
			if err != nil {
				e.T.Fatal(err)
			}
			grown := resource.MustParse("16Gi")
			c.Capacity = &grown
			if _, err := e.CS.StorageV1().CSIStorageCapacities(harness.Namespace).Update(e.Ctx, c, metav1.UpdateOptions{}); err != nil {
				e.T.Fatal(err)
			}
			e.WaitBound(90*time.Second, "big")
			e.WaitFor("claim large bound", 30*time.Second, claimBound(e, "large"))

			o := e.Outcome(2 * time.Second)
			if p := o["test/app"]; p.Node != "node-b" {
				e.T.Errorf("app: want node-b (the only segment with 2Gi free), got %+v", p)
			}
			if p := o["test/big"]; p.Node != "node-a" {
				e.T.Errorf("big: want node-a (whose capacity grew to 16Gi), got %+v", p)
			}
			// The pending pod's condition and events before the update.
			o["pending:test/big"] = pending["test/big"]
			return o
		},
	})
}

const ebsCSIDriver = "ebs.csi.aws.com"

// ebsCSINode: the node's EBS CSI driver can attach one volume, and its
// kubelet reports the in-tree EBS plugin migrated.
func ebsCSINode(node string) *storagev1.CSINode {
	one := int32(1)
	return &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{
			Name:        node,
			Annotations: map[string]string{"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"},
		},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
			Name: ebsCSIDriver, NodeID: "i-" + node, Allocatable: &storagev1.VolumeNodeResources{Count: &one},
		}}},
	}
}

func podWithEBS(name, volumeID string) *corev1.Pod {
	p := harness.NewPod(name, "100m", "64Mi")
	p.Spec.Volumes = []corev1.Volume{{Name: "disk", VolumeSource: corev1.VolumeSource{
		AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: volumeID, FSType: "ext4"},
	}}}
	return p
}

// NodeVolumeLimits counts in-tree awsElasticBlockStore volumes as the EBS
// CSI driver's, and VolumeAttachments of CSI volumes as taken slots. With
// one slot per node: node-a's is used by a running pod's in-tree volume and
// node-b's by an attachment, so a second in-tree volume fits nowhere
// ("exceed max volume count") until the attachment is deleted; a third
// waits for the first pod to be deleted.
func TestMigratedInTreeVolumeLimits(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "4", "8Gi", nil), harness.NewNode("node-b", "4", "8Gi", nil))
			e.Create(ebsCSINode("node-a"), ebsCSINode("node-b"))
			e.Create(&corev1.PersistentVolume{
				ObjectMeta: metav1.ObjectMeta{Name: "attached-b"},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
					AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
					PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
						Driver: ebsCSIDriver, VolumeHandle: "vol-attached",
					}},
				},
			})
			pvName := "attached-b"
			e.Create(&storagev1.VolumeAttachment{
				ObjectMeta: metav1.ObjectMeta{Name: "va-b"},
				Spec: storagev1.VolumeAttachmentSpec{
					Attacher: ebsCSIDriver, NodeName: "node-b",
					Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pvName},
				},
			})
			first := podWithEBS("first", "aws://us-east-1a/vol-1")
			first.Spec.NodeName = "node-a"
			e.Create(first)
			e.WaitBound(30*time.Second, "first")

			e.Create(podWithEBS("second", "vol-2"))
			e.WaitUnschedulable(60*time.Second, "second")
			pending := e.Outcome(2*time.Second, "second")
			if err := e.CS.StorageV1().VolumeAttachments().Delete(e.Ctx, "va-b", metav1.DeleteOptions{}); err != nil {
				e.T.Fatal(err)
			}
			e.WaitBound(60*time.Second, "second")

			e.Create(podWithEBS("third", "vol-3"))
			e.WaitUnschedulable(60*time.Second, "third")
			pendingThird := e.Outcome(2*time.Second, "third")["test/third"]
			if err := e.CS.CoreV1().Pods(harness.Namespace).Delete(e.Ctx, "first", metav1.DeleteOptions{}); err != nil {
				e.T.Fatal(err)
			}
			e.WaitBound(60*time.Second, "third")

			o := e.Outcome(2*time.Second, "first")
			if p := o["test/second"]; p.Node != "node-b" {
				e.T.Errorf("second: want node-b (freed by the VolumeAttachment's deletion), got %+v", p)
			}
			if p := o["test/third"]; p.Node != "node-a" {
				e.T.Errorf("third: want node-a (freed by first's deletion), got %+v", p)
			}
			// The pending pods' conditions and events before they were freed.
			o["pending:test/second"] = pending["test/second"]
			o["pending:test/third"] = pendingThird
			return o
		},
	})
}

// StorageCapacityScoring (on from 1.37): VolumeBinding scores a node by the
// share of its segment's published capacity that the pod's new volumes
// would take, so a 5Gi claim goes to node-b, whose segment has 100Gi, over
// node-a's 10Gi and node-c's 20Gi. Before 1.37 nothing scores storage and
// the three nodes tie.
func TestStorageCapacityScoringPrefersTheEmptierSegment(t *testing.T) {
	scored, err := harness.K8sMinorAtLeast(37)
	if err != nil {
		t.Fatal(err)
	}
	placements := map[string]harness.Placement{}
	if !scored {
		placements["test/app"] = harness.Placement{BestNodes: []string{"node-a", "node-b", "node-c"}}
	}
	harness.RunDifferential(t, harness.Scenario{
		Placements: placements,
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-a", "4", "8Gi", nil), harness.NewNode("node-b", "4", "8Gi", nil),
				harness.NewNode("node-c", "4", "8Gi", nil))
			tracked := true
			e.Create(&storagev1.CSIDriver{
				ObjectMeta: metav1.ObjectMeta{Name: harness.FakeCSIDriver},
				Spec:       storagev1.CSIDriverSpec{StorageCapacity: &tracked},
			})
			e.Create(storageClass("lvm", harness.FakeCSIDriver))
			e.Create(capacityOn("lvm-node-a", "lvm", "node-a", "10Gi"), capacityOn("lvm-node-b", "lvm", "node-b", "100Gi"),
				capacityOn("lvm-node-c", "lvm", "node-c", "20Gi"))
			e.Create(sizedClaim("data", "lvm", "5Gi"), podWithClaim("app", "data"))
			e.WaitBound(90*time.Second, "app")
			e.WaitFor("claim data bound", 30*time.Second, claimBound(e, "data"))
			o := e.Outcome(2 * time.Second)
			if p := o["test/app"]; scored && p.Node != "node-b" {
				e.T.Errorf("app: want node-b (5 of 100Gi, the emptiest segment), got %+v", p)
			}
			return o
		},
	})
}
