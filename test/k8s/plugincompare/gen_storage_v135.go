//go:build k8s_1_35

package plugincompare

import storagev1 "k8s.io/api/storage/v1"

// preventSchedulingIfMissing: k8s.io/api v0.35 has no such CSIDriver field.
func preventSchedulingIfMissing(*storagev1.CSIDriver) {}
