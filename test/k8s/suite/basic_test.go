// Package suite is the real-control-plane suite (ctest label k8s): each
// test is a scenario run with ksched and with the real kube-scheduler, each
// on a fresh control plane, and their outcomes compared field by field.
package suite

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ksched.dev/test/k8s/harness"
)

// Pods of the shared profile are bound to Node objects; pods for another
// scheduler are left alone (no binding, condition or Event).
func TestBindsPodsAndLeavesOtherSchedulersPods(t *testing.T) {
	nodes := []string{"node-a", "node-b", "node-c"}
	placements := map[string]harness.Placement{}
	var ours []string
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("pod-%d", i)
		ours = append(ours, name)
		placements["test/"+name] = harness.Placement{BestNodes: nodes}
	}
	harness.RunDifferential(t, harness.Scenario{
		Placements: placements,
		Run: func(e *harness.Env) harness.Outcome {
			for _, n := range nodes {
				e.Create(harness.NewNode(n, "4", "8Gi", nil))
			}
			for _, name := range ours {
				e.Create(harness.NewPod(name, "100m", "128Mi"))
			}
			for _, name := range []string{"other-0", "other-1"} {
				p := harness.NewPod(name, "100m", "128Mi")
				p.Spec.SchedulerName = "other-scheduler"
				e.Create(p)
			}
			e.WaitBound(30*time.Second, ours...)
			o := e.Outcome(2 * time.Second)
			for _, name := range []string{"test/other-0", "test/other-1"} {
				if p := o[name]; p.Node != "" || p.ConditionStatus != "" || len(p.FailedScheduling) > 0 || p.ScheduledEvents > 0 {
					e.T.Errorf("%s belongs to another scheduler but was touched: %+v", name, p)
				}
			}
			for _, name := range ours {
				if p := o["test/"+name]; p.ScheduledEvents != 1 || p.ConditionStatus != "True" {
					e.T.Errorf("%s: want one Scheduled Event and PodScheduled=True, got %+v", name, p)
				}
			}
			if e.Kind == harness.KSched {
				checkFollowsTheServersMinor(e)
			}
			return o
		},
	})
}

// ksched with default flags behaves as the control plane's own minor
// (clamped into the range it supports) and says so once.
func checkFollowsTheServersMinor(e *harness.Env) {
	info, err := e.CS.Discovery().ServerVersion()
	if err != nil {
		e.T.Fatal(err)
	}
	data, err := os.ReadFile(e.Replicas[0].LogPath)
	if err != nil {
		e.T.Fatal(err)
	}
	re := regexp.MustCompile(`behaving as kube-scheduler 1\.(\d+) \(from API server (\S+)\)`)
	lines := re.FindAllStringSubmatch(string(data), -1)
	if len(lines) != 1 {
		e.T.Fatalf("want one \"behaving as kube-scheduler\" line in ksched's log, got %d", len(lines))
	}
	want := strings.TrimRight(info.Minor, "+")
	if n, _ := strconv.Atoi(want); n > 37 {
		want = "37"
	} else if n < 34 {
		want = "34"
	}
	if lines[0][1] != want || lines[0][2] != info.GitVersion {
		e.T.Errorf("ksched behaves as 1.%s (from %s); the server is %s, want 1.%s", lines[0][1], lines[0][2],
			info.GitVersion, want)
	}
}

// A pod that fits nowhere gets the PodScheduled=False condition and the
// FailedScheduling Event as kube-scheduler writes them, and kubectl shows
// them alike; a node that fits, once added, gets the pod at once.
func TestUnschedulableThenNodeAdded(t *testing.T) {
	harness.RunDifferential(t, harness.Scenario{
		Run: func(e *harness.Env) harness.Outcome {
			e.Create(harness.NewNode("node-small", "1", "2Gi", nil))
			e.Create(harness.NewPod("big", "2", "1Gi"))
			e.WaitFailedScheduling(30*time.Second, "big")
			before := e.Outcome(time.Second)
			describe := kubectlDescribe(e, "big")
			e.T.Logf("kubectl describe (Conditions and Events):\n%s", describe)
			added := time.Now()
			e.Create(harness.NewNode("node-big", "4", "8Gi", nil))
			e.WaitBound(10*time.Second, "big")
			e.T.Logf("bound %v after the node was added", time.Since(added).Round(time.Millisecond))
			after := e.Outcome(2 * time.Second)
			if p := after["test/big"]; p.Node != "node-big" {
				e.T.Errorf("big: want node-big, got %+v", p)
			}
			// Both phases are compared: prefix the first phase's keys.
			out := harness.Outcome{}
			for k, v := range before {
				out["unschedulable:"+k] = v
			}
			for k, v := range after {
				out[k] = v
			}
			out["kubectl-describe:test/big"] = harness.PodOutcome{Exists: true, ConditionMessage: describe}
			return out
		},
	})
}

var describeAge = regexp.MustCompile(`\s+(\d+[smhd])+( \(x\d+ over (\d+[smhd])+\))?\s+`)

// kubectlDescribe is the Conditions and Events sections of `kubectl describe
// pod`, with ages and the reporting instance removed, so two clusters' output
// compares.
func kubectlDescribe(e *harness.Env, pod string) string {
	out, err := e.CP.Kubectl("describe", "pod", "-n", harness.Namespace, pod)
	if err != nil {
		e.T.Fatal(err)
	}
	var keep []string
	section := ""
	for _, line := range strings.Split(out, "\n") {
		if line != "" && !strings.HasPrefix(line, " ") {
			section = strings.TrimSuffix(strings.Fields(line)[0], ":")
		}
		if section == "Conditions" || section == "Events" {
			keep = append(keep, strings.TrimRight(describeAge.ReplaceAllString(line, "  <age>  "), " "))
		}
	}
	return strings.Join(keep, "\n")
}
