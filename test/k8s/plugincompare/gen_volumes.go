package plugincompare

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ksched.dev/test/k8s/kubeexplain"
)

// The volume plugins' inputs: StorageClasses, CSINodes with attach limits,
// PersistentVolumes (local, CSI, zonal by node affinity or by zone labels)
// and claims bound, unbound Immediate, unbound WaitForFirstConsumer (static
// PVs matching or not, dynamic provisioning with allowedTopologies),
// missing, bound to a missing PV, ReadWriteOncePod; and gen_storage.go's
// capacities and in-tree volumes.
const (
	driverA       = "a.csi.example.com" // attach-limited on most nodes
	driverB       = "b.csi.example.com"
	noProvisioner = "kubernetes.io/no-provisioner"
	betaZoneKey   = "failure-domain.beta.kubernetes.io/zone"
	classLocal    = "local"
	classWFFCA    = "wffc-a"
	classWFFCB    = "wffc-b"
	classImmed    = "immediate"
)

// volumeState is what the claims are drawn from while pods get volumes.
type volumeState struct {
	c      *kubeexplain.Cluster
	zones  []string
	nClaim int
	// bound claims by namespace, which later pods may share
	bound map[string][]*v1.PersistentVolumeClaim
}

// volumes gives half the cases storage objects and some of their pods
// claims. It runs after the pods are drawn, so a seed's other objects are
// the same with or without it.
func (g gen) volumes(c *kubeexplain.Cluster) {
	if !g.chance(0.5) {
		return
	}
	s := &volumeState{c: c, bound: map[string][]*v1.PersistentVolumeClaim{}}
	zoneSet := map[string]bool{}
	for _, n := range c.Nodes {
		if z, ok := n.Labels[zoneKey]; ok && !zoneSet[z] {
			zoneSet[z] = true
			s.zones = append(s.zones, z)
		}
	}
	if len(s.zones) == 0 {
		s.zones = []string{"zone-0"}
	}
	g.storageClasses(s)
	g.inTreeClasses(s)
	g.csiDrivers(s)
	g.capacities(s)
	for _, n := range c.Nodes {
		if g.chance(0.85) {
			g.csiNode(s, n)
		}
	}
	for i, n := 0, g.between(0, 2*len(c.Nodes)); i < n; i++ {
		g.pv(s, i)
	}
	for _, p := range c.Pods {
		if g.chance(0.1) {
			for i, n := 0, g.between(1, 2); i < n; i++ {
				g.inlineInTree(p, i)
			}
		}
		if !g.chance(0.35) {
			continue
		}
		for i, n := 0, g.between(1, 2); i < n; i++ {
			name := g.claimFor(s, p)
			if name == "" {
				continue
			}
			p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: fmt.Sprint("v", i),
				VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
		}
	}
	g.volumeAttachments(s)
}

func (g gen) storageClasses(s *volumeState) {
	wffc, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	class := func(name, prov string, mode storagev1.VolumeBindingMode) *storagev1.StorageClass {
		m := mode
		return &storagev1.StorageClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta:  metav1.ObjectMeta{Name: name, UID: types.UID("sc-" + name), ResourceVersion: "1"},
			Provisioner: prov, VolumeBindingMode: &m}
	}
	a := class(classWFFCA, driverA, wffc)
	if g.chance(0.5) { // provisioning only in some zones
		vals := []string{g.pick(s.zones...)}
		if g.chance(0.5) {
			vals = append(vals, g.pick(s.zones...))
		}
		a.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
			{Key: zoneKey, Values: vals}}}}
	}
	s.c.StorageClasses = append(s.c.StorageClasses, class(classLocal, noProvisioner, wffc), a,
		class(classWFFCB, driverB, wffc), class(classImmed, driverB, immediate))
}

func (g gen) csiNode(s *volumeState, n *v1.Node) {
	cn := &storagev1.CSINode{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSINode"},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID("csinode-" + n.Name), ResourceVersion: "1"}}
	driver := func(name string, limit int) storagev1.CSINodeDriver {
		d := storagev1.CSINodeDriver{Name: name, NodeID: n.Name, TopologyKeys: []string{zoneKey}}
		if limit >= 0 {
			c := int32(limit)
			d.Allocatable = &storagev1.VolumeNodeResources{Count: &c}
		}
		return d
	}
	limit := -1 // no allocatable: no limit
	if g.chance(0.8) {
		limit = g.between(0, 3)
	}
	cn.Spec.Drivers = append(cn.Spec.Drivers, driver(driverA, limit))
	if g.chance(0.5) {
		cn.Spec.Drivers = append(cn.Spec.Drivers, driver(driverB, g.between(1, 4)))
	}
	g.migratedDrivers(cn)
	s.c.CSINodes = append(s.c.CSINodes, cn)
}

func (g gen) accessModes() []v1.PersistentVolumeAccessMode {
	switch g.r.Intn(10) {
	case 0:
		return []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod}
	case 1:
		return []v1.PersistentVolumeAccessMode{v1.ReadWriteMany}
	case 2:
		return []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadOnlyMany}
	default:
		return []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce}
	}
}

func (g gen) pv(s *volumeState, i int) {
	name := fmt.Sprintf("pv-%d", i)
	pv := &v1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("pv-" + name), ResourceVersion: "1"},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: *resource.NewQuantity(int64(g.between(1, 100))<<30, resource.BinarySI)},
			AccessModes:                   g.accessModes(),
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
	zoneAffinity := func(zones ...string) *v1.VolumeNodeAffinity {
		return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: zoneKey, Operator: v1.NodeSelectorOpIn, Values: zones}}}}}}
	}
	switch g.r.Intn(5) {
	case 4: // an in-tree source, migrated to CSI or not
		g.inTreePV(s, pv)
	case 0: // a local volume on one node
		n := s.c.Nodes[g.r.Intn(len(s.c.Nodes))]
		pv.Spec.StorageClassName = classLocal
		pv.Spec.Local = &v1.LocalVolumeSource{Path: "/mnt/disks/" + name}
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{Key: hostKey, Operator: v1.NodeSelectorOpIn, Values: []string{n.Labels[hostKey]}}}}}}}
	case 1: // a zonal CSI volume of driver A (node affinity)
		pv.Spec.StorageClassName = classWFFCA
		pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: driverA, VolumeHandle: "vol-" + name}
		pv.Spec.NodeAffinity = zoneAffinity(g.pick(s.zones...))
	default: // driver B, zonal by labels (VolumeZone) or not at all
		pv.Spec.StorageClassName = g.pick(classWFFCB, classWFFCB, classImmed, "")
		pv.Spec.CSI = &v1.CSIPersistentVolumeSource{Driver: driverB, VolumeHandle: "vol-" + name}
		if g.chance(0.2) {
			pv.Spec.NodeAffinity = zoneAffinity(g.pick(s.zones...), g.pick(s.zones...))
		}
	}
	if g.chance(0.3) {
		z := g.pick(s.zones...)
		if g.chance(0.3) {
			z += "__" + g.pick(s.zones...) // a multi-zone label value
		}
		if pv.Spec.GCEPersistentDisk != nil {
			// Several zones make a regional disk, whose region the
			// translation parses from GCE zone names: an error with these.
			z, _, _ = strings.Cut(z, "__")
		}
		pv.Labels = map[string]string{g.pick(zoneKey, zoneKey, betaZoneKey): z}
	}
	s.c.PVs = append(s.c.PVs, pv)
}

func (g gen) claim(s *volumeState, ns string, class *string) *v1.PersistentVolumeClaim {
	name := fmt.Sprintf("claim-%d", s.nClaim)
	s.nClaim++
	pvc := &v1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(ns + "-" + name), ResourceVersion: "1"},
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: g.accessModes(), StorageClassName: class,
			Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceStorage: *resource.NewQuantity(int64(g.between(1, 60))<<30, resource.BinarySI)}}},
		Status: v1.PersistentVolumeClaimStatus{Phase: v1.ClaimPending},
	}
	s.c.PVCs = append(s.c.PVCs, pvc)
	return pvc
}

// bindClaim binds a new claim to an available PV, as the PV controller
// would have; nil when no PV is available.
func (g gen) bindClaim(s *volumeState, ns string) *v1.PersistentVolumeClaim {
	var free []*v1.PersistentVolume
	for _, pv := range s.c.PVs {
		if pv.Spec.ClaimRef == nil {
			free = append(free, pv)
		}
	}
	if len(free) == 0 {
		return nil
	}
	pv := free[g.r.Intn(len(free))]
	class := pv.Spec.StorageClassName
	pvc := g.claim(s, ns, &class)
	pvc.Spec.AccessModes = pv.Spec.AccessModes
	pvc.Spec.VolumeName = pv.Name
	pvc.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	pvc.Status.Phase = v1.ClaimBound
	pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
		Namespace: ns, Name: pvc.Name, UID: pvc.UID}
	pv.Status.Phase = v1.VolumeBound
	s.bound[ns] = append(s.bound[ns], pvc)
	return pvc
}

// claimFor draws the claim one volume of p refers to. Bound pods get bound
// claims only; an unbound claim serves one pod, so no later pod depends on
// how an earlier one bound it beyond what both schedulers see in the node.
func (g gen) claimFor(s *volumeState, p *v1.Pod) string {
	ns := p.Namespace
	pending := p.Spec.NodeName == ""
	if pending {
		switch k := g.r.Intn(20); {
		case k == 0:
			return fmt.Sprintf("missing-%d", g.r.Intn(2))
		case k == 1: // bound to a PV that does not exist
			class := classWFFCB
			pvc := g.claim(s, ns, &class)
			pvc.Spec.VolumeName = "pv-gone"
			pvc.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
			pvc.Status.Phase = v1.ClaimBound
			return pvc.Name
		case k == 2:
			class := classImmed
			return g.claim(s, ns, &class).Name
		case k < 11:
			class := g.pick(classLocal, classWFFCA, classWFFCB)
			return g.claim(s, ns, &class).Name
		case k < 13: // of an in-tree provisioner
			class := inTrees[g.r.Intn(len(inTrees))].class
			return g.claim(s, ns, &class).Name
		}
	}
	if b := s.bound[ns]; len(b) > 0 && g.chance(0.3) {
		return b[g.r.Intn(len(b))].Name
	}
	if pvc := g.bindClaim(s, ns); pvc != nil {
		return pvc.Name
	}
	if !pending {
		return "" // no PV left to bind a bound pod's claim to
	}
	class := classWFFCA
	return g.claim(s, ns, &class).Name
}
