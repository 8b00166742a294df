package plugincompare

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Storage capacity tracking and in-tree volumes migrated to CSI, on top of
// gen_volumes.go's objects: CSIDrivers (storageCapacity on or off) and
// CSIStorageCapacities with topology selectors and sizes around the
// claims' requests; StorageClasses of the in-tree provisioners, PVs and
// inline pod volumes of every in-tree source kube translates (and two it
// does not count), CSINodes of the migrated drivers with the
// migrated-plugins annotation sometimes, and VolumeAttachments.

const migratedPluginsAnn = "storage.alpha.kubernetes.io/migrated-plugins"

// inTree is one in-tree volume plugin and the CSI driver it migrated to.
type inTree struct {
	plugin, driver, class string
}

var inTrees = []inTree{
	{"kubernetes.io/aws-ebs", "ebs.csi.aws.com", "intree-ebs"},
	{"kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "intree-gce"},
	{"kubernetes.io/azure-disk", "disk.csi.azure.com", "intree-azure"},
	{"kubernetes.io/cinder", "cinder.csi.openstack.org", "intree-cinder"},
	{"kubernetes.io/portworx-volume", "pxd.portworx.com", "intree-portworx"},
	// Migratable, but never counted as CSI volumes.
	{"kubernetes.io/azure-file", "file.csi.azure.com", "intree-azurefile"},
	{"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", "intree-vsphere"},
}

// inTreeClasses adds a WaitForFirstConsumer StorageClass per in-tree
// provisioner (their unbound claims are counted through the class).
func (g gen) inTreeClasses(s *volumeState) {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	for _, it := range inTrees {
		m := wffc
		s.c.StorageClasses = append(s.c.StorageClasses, &storagev1.StorageClass{
			TypeMeta:    metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta:  metav1.ObjectMeta{Name: it.class, UID: types.UID("sc-" + it.class), ResourceVersion: "1"},
			Provisioner: it.plugin, VolumeBindingMode: &m})
	}
}

// csiDrivers gives drivers A and B (and some migrated drivers) a CSIDriver
// object, with storage capacity tracking on or off.
func (g gen) csiDrivers(s *volumeState) {
	names := []string{driverA, driverB}
	for _, it := range inTrees {
		if g.chance(0.2) {
			names = append(names, it.driver)
		}
	}
	for _, name := range names {
		if !g.chance(0.6) {
			continue
		}
		d := &storagev1.CSIDriver{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIDriver"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("csidriver-" + name), ResourceVersion: "1"}}
		switch g.r.Intn(3) {
		case 0: // unset: no capacity tracking
		case 1:
			d.Spec.StorageCapacity = ptr(false)
		default:
			d.Spec.StorageCapacity = ptr(true)
		}
		if g.chance(0.3) {
			preventSchedulingIfMissing(d)
		}
		s.c.CSIDrivers = append(s.c.CSIDrivers, d)
	}
}

func ptr[T any](v T) *T { return &v }

// size is a storage size around the claims' requests (1-60Gi), in binary or
// decimal units.
func (g gen) size(lo, hi int) resource.Quantity {
	n := int64(g.between(lo, hi))
	if g.chance(0.3) {
		return *resource.NewQuantity(n*1_000_000_000, resource.DecimalSI)
	}
	return *resource.NewQuantity(n<<30, resource.BinarySI)
}

// capacities publishes CSIStorageCapacity objects for the CSI classes: per
// zone (or a few zones, every node, no topology at all), a capacity and
// sometimes a maximum volume size, sometimes for a class nobody uses.
func (g gen) capacities(s *volumeState) {
	if !g.chance(0.7) {
		return
	}
	for i, n := 0, g.between(1, 3*len(s.zones)+1); i < n; i++ {
		c := &storagev1.CSIStorageCapacity{
			TypeMeta:         metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "CSIStorageCapacity"},
			ObjectMeta:       metav1.ObjectMeta{Name: fmt.Sprintf("csisc-%d", i), Namespace: g.pick("kube-system", "storage"), UID: types.UID(fmt.Sprintf("csisc-%d", i)), ResourceVersion: "1"},
			StorageClassName: g.pick(classWFFCA, classWFFCA, classWFFCB, classImmed, "other"),
		}
		switch k := g.r.Intn(10); {
		case k < 5:
			c.NodeTopology = &metav1.LabelSelector{MatchLabels: map[string]string{zoneKey: g.pick(s.zones...)}}
		case k < 7:
			c.NodeTopology = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: zoneKey, Operator: metav1.LabelSelectorOpIn, Values: []string{g.pick(s.zones...), g.pick(s.zones...)}}}}
		case k < 8:
			c.NodeTopology = &metav1.LabelSelector{} // every node
		case k < 9:
			c.NodeTopology = &metav1.LabelSelector{MatchLabels: map[string]string{hostKey: s.c.Nodes[g.r.Intn(len(s.c.Nodes))].Name}}
		default: // no topology: reaches no node
		}
		if g.chance(0.9) {
			q := g.size(0, 80)
			c.Capacity = &q
		}
		if g.chance(0.4) {
			q := g.size(1, 60)
			c.MaximumVolumeSize = &q
		}
		if c.Capacity == nil && c.MaximumVolumeSize != nil {
			// Such an object admits volumes up to its maximum size, and
			// kube-scheduler 1.37's VolumeBinding Score then reads its nil
			// capacity and crashes (ksched scores it as no capacity): the
			// comparison cannot include it.
			q := c.MaximumVolumeSize.DeepCopy()
			c.Capacity = &q
		}
		s.c.CSIStorageCapacities = append(s.c.CSIStorageCapacities, c)
	}
}

// migratedDrivers adds migrated CSI drivers (with attach limits) and the
// migrated-plugins annotation to a CSINode.
func (g gen) migratedDrivers(cn *storagev1.CSINode) {
	if !g.chance(0.5) {
		return
	}
	var plugins []string
	for _, it := range inTrees {
		if g.chance(0.4) {
			plugins = append(plugins, it.plugin)
		}
		if g.chance(0.4) {
			d := storagev1.CSINodeDriver{Name: it.driver, NodeID: cn.Name}
			if g.chance(0.8) {
				d.Allocatable = &storagev1.VolumeNodeResources{Count: ptr(int32(g.between(0, 3)))}
			}
			cn.Spec.Drivers = append(cn.Spec.Drivers, d)
		}
	}
	if len(plugins) > 0 || g.chance(0.2) {
		cn.Annotations = map[string]string{migratedPluginsAnn: strings.Join(plugins, ",")}
	}
}

// inTreeSource draws a volume source of the plugin. The ids repeat across
// volumes so that pods share some.
func (g gen) inTreeSource(it inTree) v1.VolumeSource {
	id := fmt.Sprintf("vol-%d", g.between(0, 5))
	switch it.plugin {
	case "kubernetes.io/aws-ebs":
		// (A malformed id is an error of the whole cycle, which the oracle
		// does not report per pod: none is drawn.)
		vid := g.pick(id, "aws://"+g.pick("zone-0", "zone-1")+"/"+id, "aws:///"+id, "aws://zone-0/"+id+"?x#y")
		return v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: vid, FSType: "ext4"}}
	case "kubernetes.io/gce-pd":
		return v1.VolumeSource{GCEPersistentDisk: &v1.GCEPersistentDiskVolumeSource{PDName: "pd-" + id}}
	case "kubernetes.io/azure-disk":
		d := &v1.AzureDiskVolumeSource{DiskName: "disk-" + id, DataDiskURI: "/subscriptions/s/resourceGroups/r/providers/Microsoft.Compute/disks/disk-" + id}
		if g.chance(0.2) { // managed only: another kind fails the translation (an error, as above)
			k := v1.AzureDataDiskKind(g.pick(string(v1.AzureManagedDisk), "managed"))
			d.Kind = &k
		}
		return v1.VolumeSource{AzureDisk: d}
	case "kubernetes.io/cinder":
		return v1.VolumeSource{Cinder: &v1.CinderVolumeSource{VolumeID: id}}
	case "kubernetes.io/portworx-volume":
		return v1.VolumeSource{PortworxVolume: &v1.PortworxVolumeSource{VolumeID: id}}
	case "kubernetes.io/azure-file":
		return v1.VolumeSource{AzureFile: &v1.AzureFileVolumeSource{SecretName: "s", ShareName: "share-" + id}}
	default:
		return v1.VolumeSource{VsphereVolume: &v1.VsphereVirtualDiskVolumeSource{VolumePath: "[ds] " + id}}
	}
}

// inTreePV is a PV of an in-tree source, zonal by its labels sometimes.
func (g gen) inTreePV(s *volumeState, pv *v1.PersistentVolume) {
	it := inTrees[g.r.Intn(len(inTrees))]
	src := g.inTreeSource(it)
	ps := &pv.Spec.PersistentVolumeSource
	switch {
	case src.AWSElasticBlockStore != nil:
		ps.AWSElasticBlockStore = src.AWSElasticBlockStore
	case src.GCEPersistentDisk != nil:
		ps.GCEPersistentDisk = src.GCEPersistentDisk
	case src.AzureDisk != nil:
		ps.AzureDisk = src.AzureDisk
	case src.Cinder != nil:
		ps.Cinder = &v1.CinderPersistentVolumeSource{VolumeID: src.Cinder.VolumeID}
	case src.PortworxVolume != nil:
		ps.PortworxVolume = src.PortworxVolume
	case src.AzureFile != nil:
		ps.AzureFile = &v1.AzureFilePersistentVolumeSource{SecretName: "s", ShareName: src.AzureFile.ShareName}
	default:
		ps.VsphereVolume = src.VsphereVolume
	}
	pv.Spec.StorageClassName = g.pick(it.class, it.class, "")
}

// inlineInTree gives a pod an inline in-tree volume.
func (g gen) inlineInTree(p *v1.Pod, i int) {
	it := inTrees[g.r.Intn(len(inTrees))]
	p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: fmt.Sprint("inline", i), VolumeSource: g.inTreeSource(it)})
}

// volumeAttachments records attachments of some PVs to some nodes, by
// their driver or another, sometimes without a PV name or attacher.
func (g gen) volumeAttachments(s *volumeState) {
	if len(s.c.PVs) == 0 || !g.chance(0.5) {
		return
	}
	for i, n := 0, g.between(1, len(s.c.PVs)); i < n; i++ {
		pv := s.c.PVs[g.r.Intn(len(s.c.PVs))]
		node := s.c.Nodes[g.r.Intn(len(s.c.Nodes))].Name
		attacher := driverA
		if pv.Spec.CSI != nil {
			attacher = pv.Spec.CSI.Driver
		} else if g.chance(0.7) {
			attacher = inTrees[g.r.Intn(len(inTrees))].driver
		}
		if g.chance(0.1) {
			attacher = g.pick("", driverB)
		}
		va := &storagev1.VolumeAttachment{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "VolumeAttachment"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("va-%d", i), UID: types.UID(fmt.Sprintf("va-%d", i)), ResourceVersion: "1"},
			Spec: storagev1.VolumeAttachmentSpec{Attacher: attacher, NodeName: node,
				Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr(pv.Name)}},
			Status: storagev1.VolumeAttachmentStatus{Attached: g.chance(0.8)}}
		if g.chance(0.05) {
			va.Spec.Source.PersistentVolumeName = nil
			va.Spec.Source.InlineVolumeSpec = &v1.PersistentVolumeSpec{}
		}
		s.c.VolumeAttachments = append(s.c.VolumeAttachments, va)
	}
}
