package suite

import (
	"fmt"
	"testing"
	"time"

	"ksched.dev/test/k8s/harness"
)

// noDefaultSpreading is a profile without PodTopologySpread's system-default
// constraints: its pods are signable, so opportunistic batching (on from
// 1.35) places runs of alike pods.
const noDefaultSpreading = `  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
`

// Opportunistic batching: eight alike pods, created in a burst, on four
// alike nodes with room for two each. The nodes tie, so which node each pod
// gets is decided by the order of kube's ranking: a pod that follows an
// alike pod takes the next node of its ranking (from 1.37 after rescoring
// the previous pod's node; before, only once that node is full). A
// scheduler's ranking starts from the order in which its informer got the
// nodes, which differs from run to run (the initial list races the nodes'
// creation), so the pods' nodes are compared by the order in which the run
// first used them: web-0's node is "node#0", the next new one "node#1", ...
// Without batching the pattern differs (each pod's ranking would be
// rebuilt from the scheduler's node order).
func TestBatchingPlacesARunOfAlikePods(t *testing.T) {
	nodes := []string{"node-0", "node-1", "node-2", "node-3"}
	var pods []string
	for i := 0; i < 8; i++ {
		pods = append(pods, fmt.Sprintf("web-%d", i))
	}
	harness.RunDifferential(t, harness.Scenario{
		Options: harness.SchedulerOptions{ProfileYAML: noDefaultSpreading},
		Run: func(e *harness.Env) harness.Outcome {
			for _, n := range nodes {
				e.Create(harness.NewNode(n, "2", "8Gi", nil))
			}
			// The scheduler's node informer must hold every node before the
			// first pod comes: its ranking is over the nodes it knows.
			time.Sleep(time.Second)
			for _, name := range pods {
				p := harness.NewPod(name, "900m", "128Mi")
				p.Labels = map[string]string{"app": "web"}
				e.Create(p)
			}
			e.WaitBound(30*time.Second, pods...)
			o := e.Outcome(time.Second)
			perNode := map[string]int{}
			for _, name := range pods {
				perNode[o["test/"+name].Node]++
			}
			for _, n := range nodes {
				if perNode[n] != 2 {
					e.T.Errorf("%s holds %d pods, want 2 (%v)", n, perNode[n], perNode)
				}
			}
			firstUse := map[string]string{}
			for _, name := range pods {
				p := o["test/"+name]
				if _, ok := firstUse[p.Node]; !ok {
					firstUse[p.Node] = fmt.Sprintf("node#%d", len(firstUse))
				}
				e.T.Logf("%s on %s (%s)", name, p.Node, firstUse[p.Node])
				p.Node = firstUse[p.Node]
				o["test/"+name] = p
			}
			return o
		},
	})
}
