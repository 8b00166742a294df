package harness

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
)

// FakeProvisioner is the provisioner name of StorageClasses whose
// WaitForFirstConsumer claims the harness provisions.
const FakeProvisioner = "example.com/fake-provisioner"

// FakeCSIDriver is provisioned the same way; unlike FakeProvisioner it is a
// valid CSIDriver object name, so scenarios can give it a CSIDriver (with
// storageCapacity) and CSIStorageCapacity objects.
const FakeCSIDriver = "fake.csi.example.com"

// StartFakeKubelets plays, for every node without a kubelet of its own, the
// parts of the kubelet a scheduler observes: a bound pod becomes Running and
// Ready (so the disruption controller counts it healthy), and a gracefully
// deleted pod is removed at once. Pods of a node a real kubelet registered
// (WithKubelets) are left to that kubelet: it admits, runs and removes them.
// It also plays an external provisioner for
// FakeProvisioner and FakeCSIDriver: a claim the scheduler annotated with a selected node gets
// a local PV on that node, pre-bound to it, for the PV controller to bind.
// Runs until ctx ends.
func StartFakeKubelets(ctx context.Context, cs kubernetes.Interface) {
	factory := informers.NewSharedInformerFactory(cs, 0)
	nodes := factory.Core().V1().Nodes().Lister()
	run := func(pod *corev1.Pod) {
		if pod.Spec.NodeName != "" && !hasRealKubelet(ctx, cs, nodes, pod.Spec.NodeName) {
			runPod(ctx, cs, pod)
		}
	}
	pods := factory.Core().V1().Pods().Informer()
	_, _ = pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { run(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj interface{}) { run(obj.(*corev1.Pod)) },
	})
	claims := factory.Core().V1().PersistentVolumeClaims().Informer()
	classes := factory.Storage().V1().StorageClasses().Lister()
	provision := func(obj interface{}) { provisionClaim(ctx, cs, classes, obj.(*corev1.PersistentVolumeClaim)) }
	_, _ = claims.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    provision,
		UpdateFunc: func(_, obj interface{}) { provision(obj) },
	})
	factory.Start(ctx.Done())
}

// hasRealKubelet: the node was registered by a kubelet, which reports its
// version in the Node's status (test Nodes leave nodeInfo empty). A node not
// yet in the informer's cache is read from the API server.
func hasRealKubelet(ctx context.Context, cs kubernetes.Interface, nodes corelisters.NodeLister, name string) bool {
	node, err := nodes.Get(name)
	if err != nil {
		if node, err = cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false // gone or unreachable: nothing a kubelet would do either
		}
	}
	return node.Status.NodeInfo.KubeletVersion != ""
}

func runPod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) {
	if pod.Spec.NodeName == "" {
		return
	}
	if pod.DeletionTimestamp != nil {
		zero := int64(0)
		err := cs.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name,
			metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &pod.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) && ctx.Err() == nil {
			fmt.Printf("fake kubelet: deleting %s/%s: %v\n", pod.Namespace, pod.Name, err)
		}
		return
	}
	if pod.Status.Phase == corev1.PodRunning {
		return
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil || cur.Status.Phase == corev1.PodRunning || cur.DeletionTimestamp != nil {
			return err
		}
		now := metav1.Now()
		cur.Status.Phase = corev1.PodRunning
		cur.Status.StartTime = &now
		for _, c := range []corev1.PodConditionType{corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			setCondition(&cur.Status, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue, LastTransitionTime: now})
		}
		_, err = cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		fmt.Printf("fake kubelet: starting %s/%s: %v\n", pod.Namespace, pod.Name, err)
	}
}

func setCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			status.Conditions[i] = c
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}

func provisionClaim(ctx context.Context, cs kubernetes.Interface, classes storagelisters.StorageClassLister,
	pvc *corev1.PersistentVolumeClaim) {
	node := pvc.Annotations["volume.kubernetes.io/selected-node"]
	if node == "" || pvc.Spec.VolumeName != "" || pvc.Spec.StorageClassName == nil {
		return
	}
	class, err := classes.Get(*pvc.Spec.StorageClassName)
	if err != nil || (class.Provisioner != FakeProvisioner && class.Provisioner != FakeCSIDriver) {
		return
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "pvc-" + string(pvc.UID),
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": class.Provisioner},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: pvc.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              class.Name,
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				Local: &corev1.LocalVolumeSource{Path: "/mnt/" + pvc.Name},
			},
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID,
			},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node},
				}}}},
			}},
		},
	}
	_, err = cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
		fmt.Printf("fake provisioner: %s/%s: %v\n", pvc.Namespace, pvc.Name, err)
	}
}
