package kubeexplain

import (
	"fmt"
	"reflect"
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
)

// Volume annotations of the PV controller and the scheduler
// (k8s.io/component-helpers/storage/volume).
const (
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	annSelectedNode  = "volume.kubernetes.io/selected-node"
)

// VolumeDecision is what VolumeBinding decided for one claim of a placed
// pod: bind it to the static PV named PV, or provision a volume for it
// (PV empty).
type VolumeDecision struct {
	Namespace, Claim string
	PV               string
}

// volumeDecisions reads VolumeBinding's binding decisions for node from
// the cycle state the Filter runner filled. The plugin keeps them in
// unexported fields (stateData.podVolumesByNode, BindingInfo.pv/.pvc), the
// very values its Reserve hands the binder; reflection reads them without
// re-deciding anything here.
func volumeDecisions(state fwk.CycleState, node string) ([]VolumeDecision, error) {
	data, err := state.Read(fwk.StateKey("VolumeBinding"))
	if err != nil {
		return nil, nil // no VolumeBinding in the profile, or no claims
	}
	sd := reflect.ValueOf(data)
	if sd.Kind() != reflect.Pointer || sd.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("VolumeBinding's state is a %T", data)
	}
	byNode := sd.Elem().FieldByName("podVolumesByNode")
	if !byNode.IsValid() || byNode.Kind() != reflect.Map {
		return nil, fmt.Errorf("VolumeBinding's state has no podVolumesByNode map")
	}
	pv := byNode.MapIndex(reflect.ValueOf(node))
	if !pv.IsValid() || pv.IsNil() {
		return nil, nil
	}
	var out []VolumeDecision
	static := pv.Elem().FieldByName("StaticBindings")
	for i := 0; i < static.Len(); i++ {
		b := static.Index(i).Elem()
		claim, vol := b.FieldByName("pvc").Elem(), b.FieldByName("pv").Elem()
		out = append(out, VolumeDecision{
			Namespace: claim.FieldByName("Namespace").String(),
			Claim:     claim.FieldByName("Name").String(),
			PV:        vol.FieldByName("Name").String(),
		})
	}
	dyn := pv.Elem().FieldByName("DynamicProvisions")
	for i := 0; i < dyn.Len(); i++ {
		claim := dyn.Index(i).Elem().FieldByName("PVC").Elem()
		out = append(out, VolumeDecision{
			Namespace: claim.FieldByName("Namespace").String(),
			Claim:     claim.FieldByName("Name").String(),
		})
	}
	return out, nil
}

// bumpVersion: the assume caches take an update only with a higher
// resourceVersion.
func bumpVersion(rv string) string {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return strconv.FormatInt(n+1, 10)
}

// ApplyVolumeDecisions changes c's PVs and PVCs as the API server, the PV
// controller and a provisioner would after VolumeBinding's PreBind, which
// is what `ksched simulate` applies at once (docs/simulate.md): a static
// binding gives the PV the claimRef (phase Bound) and binds the claim; a
// provisioning adds PV pvc-<claim uid> (the claim's storage request, access
// modes and class, a CSI source of the class's provisioner, claimRef,
// phase Bound) and binds the claim to it. It
// returns the objects changed or added, which c now holds (copies: the old
// objects are not modified).
func (c *Cluster) ApplyVolumeDecisions(ds []VolumeDecision) (pvs []*v1.PersistentVolume, pvcs []*v1.PersistentVolumeClaim, err error) {
	for _, d := range ds {
		ci := -1
		for i, pvc := range c.PVCs {
			if pvc.Namespace == d.Namespace && pvc.Name == d.Claim {
				ci = i
			}
		}
		if ci < 0 {
			return nil, nil, fmt.Errorf("volume decision for claim %s/%s, which does not exist", d.Namespace, d.Claim)
		}
		claim := c.PVCs[ci].DeepCopy()
		ref := &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
			Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID}
		var pv *v1.PersistentVolume
		if d.PV != "" {
			for i, p := range c.PVs {
				if p.Name == d.PV {
					pv = p.DeepCopy()
					pv.Spec.ClaimRef = ref
					pv.Status.Phase = v1.VolumeBound
					pv.ResourceVersion = bumpVersion(pv.ResourceVersion)
					c.PVs[i] = pv
				}
			}
			if pv == nil {
				return nil, nil, fmt.Errorf("claim %s/%s bound to PV %s, which does not exist", d.Namespace, d.Claim, d.PV)
			}
		} else {
			name := "pvc-" + string(claim.UID)
			pv = &v1.PersistentVolume{}
			pv.APIVersion, pv.Kind = "v1", "PersistentVolume"
			pv.Name, pv.UID, pv.ResourceVersion = name, types.UID("pv/"+name), "1"
			if s, ok := claim.Spec.Resources.Requests[v1.ResourceStorage]; ok {
				pv.Spec.Capacity = v1.ResourceList{v1.ResourceStorage: s}
			}
			pv.Spec.AccessModes = claim.Spec.AccessModes
			if claim.Spec.StorageClassName != nil {
				pv.Spec.StorageClassName = *claim.Spec.StorageClassName
			}
			for _, sc := range c.StorageClasses {
				if sc.Name == pv.Spec.StorageClassName && sc.Provisioner != "" && sc.Provisioner != "kubernetes.io/no-provisioner" {
					pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: sc.Provisioner, VolumeHandle: name}
				}
			}
			pv.Spec.ClaimRef = ref
			pv.Status.Phase = v1.VolumeBound
			c.PVs = append(c.PVs, pv)
		}
		if claim.Annotations == nil {
			claim.Annotations = map[string]string{}
		}
		claim.Annotations[annBindCompleted] = "yes"
		claim.Spec.VolumeName = pv.Name
		claim.Status.Phase = v1.ClaimBound
		claim.ResourceVersion = bumpVersion(claim.ResourceVersion)
		c.PVCs[ci] = claim
		pvs, pvcs = append(pvs, pv), append(pvcs, claim)
	}
	return pvs, pvcs, nil
}
