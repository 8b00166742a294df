//go:build !k8s_1_35

package plugincompare

import storagev1 "k8s.io/api/storage/v1"

// preventSchedulingIfMissing opts the driver into VolumeLimitScaling's check
// (the CSIDriver field exists from k8s.io/api v0.36; kube-scheduler reads it
// from 1.37).
func preventSchedulingIfMissing(d *storagev1.CSIDriver) {
	d.Spec.PreventPodSchedulingIfMissing = ptr(true)
}
