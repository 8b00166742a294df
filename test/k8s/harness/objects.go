package harness

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NewNode is a Ready node with the given allocatable CPU and memory, room
// for 110 pods, and the hostname label kubelets set.
func NewNode(name, cpu, memory string, labels map[string]string) *corev1.Node {
	l := map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
	for k, v := range labels {
		l[k] = v
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Status: corev1.NodeStatus{
			Capacity:    res,
			Allocatable: res,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
		},
	}
}

// NewPod is a pod of the scenario namespace for the shared profile, one
// container requesting the given CPU and memory ("" for none).
func NewPod(name, cpu, memory string) *corev1.Pod {
	req := corev1.ResourceList{}
	if cpu != "" {
		req[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		req[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"pod": name}},
		Spec: corev1.PodSpec{
			SchedulerName:                 ProfileName,
			TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{
				Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: req},
			}},
		},
	}
}

// NewPriorityClass is a non-default PriorityClass.
func NewPriorityClass(name string, value int32) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

func createObject(ctx context.Context, cs kubernetes.Interface, obj interface{}) error {
	opts := metav1.CreateOptions{}
	var err error
	switch o := obj.(type) {
	case *corev1.Node:
		// The status of a created Node is kept, as kubelets register theirs.
		_, err = cs.CoreV1().Nodes().Create(ctx, o, opts)
	case *corev1.Pod:
		_, err = cs.CoreV1().Pods(o.Namespace).Create(ctx, o, opts)
	case *corev1.PersistentVolume:
		_, err = cs.CoreV1().PersistentVolumes().Create(ctx, o, opts)
	case *corev1.PersistentVolumeClaim:
		_, err = cs.CoreV1().PersistentVolumeClaims(o.Namespace).Create(ctx, o, opts)
	case *storagev1.StorageClass:
		_, err = cs.StorageV1().StorageClasses().Create(ctx, o, opts)
	case *storagev1.CSIDriver:
		_, err = cs.StorageV1().CSIDrivers().Create(ctx, o, opts)
	case *storagev1.CSINode:
		_, err = cs.StorageV1().CSINodes().Create(ctx, o, opts)
	case *storagev1.CSIStorageCapacity:
		_, err = cs.StorageV1().CSIStorageCapacities(o.Namespace).Create(ctx, o, opts)
	case *storagev1.VolumeAttachment:
		_, err = cs.StorageV1().VolumeAttachments().Create(ctx, o, opts)
	case *policyv1.PodDisruptionBudget:
		_, err = cs.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, opts)
	case *schedulingv1.PriorityClass:
		_, err = cs.SchedulingV1().PriorityClasses().Create(ctx, o, opts)
	// What selects pods for PodTopologySpread's default constraints.
	case *corev1.Service:
		_, err = cs.CoreV1().Services(o.Namespace).Create(ctx, o, opts)
	case *corev1.ReplicationController:
		_, err = cs.CoreV1().ReplicationControllers(o.Namespace).Create(ctx, o, opts)
	case *appsv1.ReplicaSet:
		_, err = cs.AppsV1().ReplicaSets(o.Namespace).Create(ctx, o, opts)
	case *appsv1.StatefulSet:
		_, err = cs.AppsV1().StatefulSets(o.Namespace).Create(ctx, o, opts)
	// Dynamic Resource Allocation.
	case *resourcev1.DeviceClass:
		_, err = cs.ResourceV1().DeviceClasses().Create(ctx, o, opts)
	case *resourcev1.ResourceSlice:
		_, err = cs.ResourceV1().ResourceSlices().Create(ctx, o, opts)
	case *resourcev1.ResourceClaim:
		_, err = cs.ResourceV1().ResourceClaims(o.Namespace).Create(ctx, o, opts)
	case *resourcev1.ResourceClaimTemplate:
		_, err = cs.ResourceV1().ResourceClaimTemplates(o.Namespace).Create(ctx, o, opts)
	default:
		err = fmt.Errorf("createObject: no client for %T", obj)
	}
	return err
}
