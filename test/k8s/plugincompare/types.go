package plugincompare

import v1 "k8s.io/api/core/v1"

// Short names for the shrinker's slices.
type (
	v1Pod  = v1.Pod
	v1Node = v1.Node
)
