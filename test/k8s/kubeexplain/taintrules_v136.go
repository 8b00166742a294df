//go:build k8s_1_36

package kubeexplain

import resourceapi "k8s.io/api/resource/v1beta2"

// DeviceTaintRule as v1.36 serves it (resource.k8s.io/v1beta2).
type (
	DeviceTaintRule     = resourceapi.DeviceTaintRule
	DeviceTaintSelector = resourceapi.DeviceTaintSelector
	DeviceTaintEffect   = resourceapi.DeviceTaintEffect
)

const DeviceTaintRuleAPIVersion = "resource.k8s.io/v1beta2"
