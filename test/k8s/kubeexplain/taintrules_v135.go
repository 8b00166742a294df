//go:build k8s_1_35

package kubeexplain

import resourceapi "k8s.io/api/resource/v1alpha3"

// DeviceTaintRule as v1.35 serves it (resource.k8s.io/v1alpha3).
type (
	DeviceTaintRule     = resourceapi.DeviceTaintRule
	DeviceTaintSelector = resourceapi.DeviceTaintSelector
	DeviceTaintEffect   = resourceapi.DeviceTaintEffect
)

const DeviceTaintRuleAPIVersion = "resource.k8s.io/v1alpha3"
