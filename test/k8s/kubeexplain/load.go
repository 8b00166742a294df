package kubeexplain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Cluster is the part of a snapshot the oracle models: nodes, pods (bound
// or pending), namespaces (InterPodAffinity's namespaceSelector lists
// them), the volume plugins' objects (PersistentVolumes,
// PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers,
// CSIStorageCapacities and VolumeAttachments), the workloads
// PodTopologySpread's default selector reads, and DRA's objects.
type Cluster struct {
	Nodes                []*v1.Node
	Pods                 []*v1.Pod
	Namespaces           []*v1.Namespace
	PVs                  []*v1.PersistentVolume
	PVCs                 []*v1.PersistentVolumeClaim
	StorageClasses       []*storagev1.StorageClass
	CSINodes             []*storagev1.CSINode
	CSIDrivers           []*storagev1.CSIDriver
	CSIStorageCapacities []*storagev1.CSIStorageCapacity
	VolumeAttachments    []*storagev1.VolumeAttachment
	Workloads
	DRA
}

// LoadFiles reads files or folders (recursively, .yaml/.yml/.json in name
// order) in `kubectl get -o yaml` shapes, as `ksched simulate --cluster`.
func LoadFiles(paths ...string) (*Cluster, error) {
	c := &Cluster{}
	for _, p := range paths {
		var files []string
		err := filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := strings.ToLower(filepath.Ext(f))
			if !d.IsDir() && (f == p || ext == ".yaml" || ext == ".yml" || ext == ".json") {
				files = append(files, f)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := c.Decode(data); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return c, nil
}

// Decode adds the objects of one multi-document YAML or JSON text.
func (c *Cluster) Decode(data []byte) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if u.Object == nil {
			continue
		}
		if err := c.add(&u); err != nil {
			return err
		}
	}
}

func (c *Cluster) add(u *unstructured.Unstructured) error {
	if u.IsList() {
		return u.EachListItem(func(o runtime.Object) error { return c.add(o.(*unstructured.Unstructured)) })
	}
	if ok, err := c.Workloads.add(u); ok {
		return err
	}
	if ok, err := c.DRA.add(u); ok {
		return err
	}
	conv := runtime.DefaultUnstructuredConverter
	switch u.GetKind() {
	case "Node":
		n := &v1.Node{}
		if err := conv.FromUnstructured(u.Object, n); err != nil {
			return err
		}
		c.Nodes = append(c.Nodes, n)
	case "Pod":
		p := &v1.Pod{}
		if err := conv.FromUnstructured(u.Object, p); err != nil {
			return err
		}
		// ksched's normalisation (docs/simulate.md "Input").
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		if p.UID == "" {
			p.UID = types.UID("Pod/" + p.Namespace + "/" + p.Name)
		}
		if p.Spec.SchedulerName == "" {
			p.Spec.SchedulerName = v1.DefaultSchedulerName
		}
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			return nil
		}
		c.Pods = append(c.Pods, p)
	case "Namespace":
		ns := &v1.Namespace{}
		if err := conv.FromUnstructured(u.Object, ns); err != nil {
			return err
		}
		c.Namespaces = append(c.Namespaces, ns)
	case "PersistentVolume":
		pv := &v1.PersistentVolume{}
		if err := conv.FromUnstructured(u.Object, pv); err != nil {
			return err
		}
		c.PVs = append(c.PVs, pv)
	case "PersistentVolumeClaim":
		pvc := &v1.PersistentVolumeClaim{}
		if err := conv.FromUnstructured(u.Object, pvc); err != nil {
			return err
		}
		if pvc.Namespace == "" {
			pvc.Namespace = "default"
		}
		c.PVCs = append(c.PVCs, pvc)
	case "StorageClass":
		sc := &storagev1.StorageClass{}
		if err := conv.FromUnstructured(u.Object, sc); err != nil {
			return err
		}
		c.StorageClasses = append(c.StorageClasses, sc)
	case "CSINode":
		cn := &storagev1.CSINode{}
		if err := conv.FromUnstructured(u.Object, cn); err != nil {
			return err
		}
		c.CSINodes = append(c.CSINodes, cn)
	case "CSIDriver":
		d := &storagev1.CSIDriver{}
		if err := conv.FromUnstructured(u.Object, d); err != nil {
			return err
		}
		c.CSIDrivers = append(c.CSIDrivers, d)
	case "CSIStorageCapacity":
		sc := &storagev1.CSIStorageCapacity{}
		if err := conv.FromUnstructured(u.Object, sc); err != nil {
			return err
		}
		c.CSIStorageCapacities = append(c.CSIStorageCapacities, sc)
	case "VolumeAttachment":
		va := &storagev1.VolumeAttachment{}
		if err := conv.FromUnstructured(u.Object, va); err != nil {
			return err
		}
		c.VolumeAttachments = append(c.VolumeAttachments, va)
	}
	return nil
}

// Objects lists c's objects in the order `ksched simulate` and the oracle
// read them: namespaces, nodes, storage objects, DRA objects, pods,
// workloads.
func (c *Cluster) Objects() []runtime.Object {
	var objs []runtime.Object
	objs = appendObjects(objs, c.Namespaces)
	objs = appendObjects(objs, c.Nodes)
	objs = appendObjects(objs, c.StorageClasses)
	objs = appendObjects(objs, c.CSINodes)
	objs = appendObjects(objs, c.CSIDrivers)
	objs = appendObjects(objs, c.CSIStorageCapacities)
	objs = appendObjects(objs, c.VolumeAttachments)
	objs = appendObjects(objs, c.PVs)
	objs = appendObjects(objs, c.PVCs)
	objs = append(objs, c.DRA.Objects()...)
	objs = appendObjects(objs, c.Pods)
	return append(objs, c.Workloads.Objects()...)
}

// appendObjects appends items to objs.
func appendObjects[T runtime.Object](objs []runtime.Object, items []T) []runtime.Object {
	for _, o := range items {
		objs = append(objs, o)
	}
	return objs
}
