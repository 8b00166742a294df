//go:build !k8s_1_35

// What releases from v1.36 on share among compat_v1NN.go's contact points:
// an informer reports its sync through a DoneChecker.

package kubeexplain

import "k8s.io/client-go/tools/cache"

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (synced) HasSyncedChecker() cache.DoneChecker { return synced{} }
func (synced) Name() string                        { return "kubeexplain sync informer" }
func (synced) Done() <-chan struct{}               { return closedDone }
