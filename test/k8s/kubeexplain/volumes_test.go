package kubeexplain

import (
	"context"
	"strings"
	"testing"
)

// The oracle must feed VolumeBinding's assume caches (through syncFactory)
// and bind claims as pods are placed: a WaitForFirstConsumer claim finds
// the one matching local PV, and the next pod's claim, of the same class,
// finds none left.
func TestVolumesAreLoadedAndBound(t *testing.T) {
	const snapshot = `
apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: b, labels: {kubernetes.io/hostname: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, resourceVersion: "1"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-b, resourceVersion: "1"}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/b}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [b]}]
status: {phase: Available}
`
	claim := func(name string) string {
		return `
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ` + name + `, namespace: default, uid: uid-` + name + `, resourceVersion: "1"}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 1Gi}}
`
	}
	pod := func(name, created, claim string) string {
		return `
---
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `, namespace: default, creationTimestamp: "2026-01-01T00:00:0` + created + `Z"}
spec:
  containers: [{name: c, image: pause}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: ` + claim + `}}]
`
	}
	c := &Cluster{}
	if err := c.Decode([]byte(snapshot + claim("first") + claim("second") + pod("p1", "1", "first") + pod("p2", "2", "second"))); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pods) != 2 {
		t.Fatalf("%d pods reported", len(rep.Pods))
	}
	p1, p2 := rep.Pods[0], rep.Pods[1]
	if p1.Node != "b" || len(p1.Volumes) != 1 || p1.Volumes[0] != (VolumeDecision{Namespace: "default", Claim: "first", PV: "pv-b"}) {
		t.Errorf("p1: node %q, volumes %+v; want b, first bound to pv-b", p1.Node, p1.Volumes)
	}
	if p2.Node != "" || !strings.Contains(p2.FitError, "didn't find available persistent volumes to bind") {
		t.Errorf("p2: node %q, fitError %q; want pending, no PV left", p2.Node, p2.FitError)
	}
	// The case's own objects are unchanged: the binding is the oracle's.
	if c.PVs[0].Spec.ClaimRef != nil || c.PVCs[0].Spec.VolumeName != "" {
		t.Errorf("Run changed the cluster it was given")
	}
	// ApplyVolumeDecisions gives a copy the same bindings.
	pvs, pvcs, err := c.ApplyVolumeDecisions(p1.Volumes)
	if err != nil {
		t.Fatal(err)
	}
	if len(pvs) != 1 || pvs[0].Spec.ClaimRef == nil || pvs[0].Spec.ClaimRef.Name != "first" ||
		len(pvcs) != 1 || pvcs[0].Spec.VolumeName != "pv-b" || pvcs[0].ResourceVersion != "2" {
		t.Errorf("ApplyVolumeDecisions: %+v %+v", pvs, pvcs)
	}
}
