package plugincompare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"ksched.dev/test/k8s/kubeexplain"
)

// Configs are the KubeSchedulerConfigurations a case runs with (seed modulo
// len): the defaults, then other scoring strategies and weights, two of them
// scoring extended resources that DeviceClasses serve (DRAExtendedResource).
// BalancedAllocation scores none: kube 1.37's BalancedAllocation has no CEL
// cache and would fail on a class with selectors. None runs
// PostFilter: preemption is outside this comparison (evictions would make
// later pods see different clusters).
var Configs = []string{
	configHead,
	configHead + `    score:
      enabled:
      - name: NodeResourcesFit
        weight: 3
      - name: ImageLocality
        weight: 2
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 2
        - name: memory
          weight: 1
        - name: example.com/gpu
          weight: 3
        - name: example.com/fpga
          weight: 2
  - name: NodeResourcesBalancedAllocation
    args:
      resources:
      - name: cpu
        weight: 1
      - name: memory
        weight: 1
      - name: ephemeral-storage
        weight: 1
`,
	configHead + `  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/gpu]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources:
        - name: cpu
          weight: 1
        - name: memory
          weight: 2
        - name: deviceclass.resource.kubernetes.io/accel
          weight: 1
        requestedToCapacityRatio:
          shape:
          - utilization: 0
            score: 10
          - utilization: 60
            score: 3
          - utilization: 100
            score: 8
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 5
      ignorePreferredTermsOfExistingPods: true
`,
}

// ConfigFor is the configuration of a seed's case.
func ConfigFor(seed int64) string { return Configs[seed%int64(len(Configs))] }

const configHead = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    postFilter:
      disabled:
      - name: "*"
`

// YAML writes c as multi-document YAML in `kubectl get -o yaml` shapes.
func YAML(c *kubeexplain.Cluster) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range c.Objects() {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}

// JSON writes c as one `kind: List`, the shape of `kubectl get -o json`;
// encoding/json is an order of magnitude cheaper than YAML for both sides.
func JSON(c *kubeexplain.Cluster) ([]byte, error) {
	return json.Marshal(struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []runtime.Object `json:"items"`
	}{"v1", "List", c.Objects()})
}

// RunKsched runs `ksched simulate` with config on c in dir and decodes its report.
func RunKsched(bin, dir, config string, c *kubeexplain.Cluster) (*kubeexplain.Report, error) {
	y, err := JSON(c)
	if err != nil {
		return nil, err
	}
	snap, cfg := filepath.Join(dir, "snapshot.json"), filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(snap, y, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	// A case takes milliseconds: a minute means ksched hangs, which is a
	// failure to report, not to wait out.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "simulate", "--config", cfg, "--cluster", snap,
		"--explain", "--output", "json", "--tie-break", "lowest-name", "--emulated-version", kubeexplain.EmulatedVersion())
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ksched simulate: %v: %s", err, errb.String())
	}
	rep := &kubeexplain.Report{}
	if err := json.Unmarshal(out.Bytes(), rep); err != nil {
		return nil, fmt.Errorf("ksched simulate output: %w", err)
	}
	return rep, nil
}

// Diff compares the oracle's report (want) with ksched's (got) and returns
// the differences, one a line; empty means equal. Pods ksched attempted
// more than once are returned in retried (indices in want.Pods) instead:
// ksched's explanation is of its last cycle, a retry after the first pass
// (bindings made later requeue it), which the single-pass oracle does not
// run. All retries come after the first pass (the fake clock only advances
// when no pod is ready), so the other pods' cycles are unaffected; the
// caller compares the retried pods' first attempts with FirstAttempt.
func Diff(want, got *kubeexplain.Report) (diffs []string, retried []int) {
	byName := map[string]*kubeexplain.PodReport{}
	for i := range got.Pods {
		p := &got.Pods[i]
		byName[p.Namespace+"/"+p.Name] = p
	}
	for i, w := range want.Pods {
		key := w.Namespace + "/" + w.Name
		g := byName[key]
		if g == nil {
			diffs = append(diffs, fmt.Sprintf("%s: missing in ksched's report", key))
			continue
		}
		if g.Attempts > 1 {
			retried = append(retried, i)
			continue
		}
		diffs = append(diffs, DiffPod(key, &w, g)...)
	}
	return diffs, retried
}

// FirstAttempt is the cluster as want.Pods[i] found it in the first pass:
// the snapshot's bound pods, the pending pods placed before it bound where
// the oracle put them with their claims bound as the oracle decided (the
// comparison checks those placements) and their ResourceClaims as the
// oracle wrote them, and it the only pending pod, so that ksched attempts
// it exactly once.
func FirstAttempt(c *kubeexplain.Cluster, want *kubeexplain.Report, i int) (*kubeexplain.Cluster, error) {
	out := &kubeexplain.Cluster{Nodes: c.Nodes, Namespaces: c.Namespaces, Workloads: c.Workloads, DRA: c.DRA,
		StorageClasses: c.StorageClasses, CSINodes: c.CSINodes, CSIDrivers: c.CSIDrivers,
		CSIStorageCapacities: c.CSIStorageCapacities, VolumeAttachments: c.VolumeAttachments,
		PVs:  append([]*v1.PersistentVolume(nil), c.PVs...),
		PVCs: append([]*v1.PersistentVolumeClaim(nil), c.PVCs...)}
	placed := map[string]string{}
	for _, p := range want.Pods[:i] {
		if p.Node != "" {
			placed[p.Namespace+"/"+p.Name] = p.Node
			if _, _, err := out.ApplyVolumeDecisions(p.Volumes); err != nil {
				return nil, err
			}
			out.DRA = out.DRA.WithClaims(p.Claims)
		}
	}
	target := want.Pods[i].Namespace + "/" + want.Pods[i].Name
	for _, p := range c.Pods {
		key := p.Namespace + "/" + p.Name
		switch {
		case p.Spec.NodeName != "" || key == target:
			out.Pods = append(out.Pods, p)
		case placed[key] != "":
			b := p.DeepCopy()
			b.Spec.NodeName = placed[key]
			out.Pods = append(out.Pods, b)
		}
	}
	return out, nil
}

func verdictText(v kubeexplain.Verdict) string {
	switch {
	case v.Feasible:
		return "feasible"
	case v.NotEvaluated:
		return "notEvaluated"
	}
	if v.Plugin == "NodeResourcesFit" {
		// kube-scheduler lists the extended resources (hugepages, device
		// plugins) a node lacks in Go map order, which varies from run to
		// run: their order is not compared (the fitError sorts them anyway).
		reasons := append([]string(nil), v.Reasons...)
		sort.Strings(reasons)
		return fmt.Sprintf("%s %s %q", v.Plugin, v.Code, reasons)
	}
	return fmt.Sprintf("%s %s %q", v.Plugin, v.Code, v.Reason)
}

// DiffPod compares one pod's reports.
func DiffPod(key string, w, g *kubeexplain.PodReport) []string {
	var d []string
	for _, n := range union(w.Filter, g.Filter) {
		if a, b := verdictText(w.Filter[n]), verdictText(g.Filter[n]); a != b {
			d = append(d, fmt.Sprintf("%s: filter %s: kube %s, ksched %s", key, n, a, b))
		}
	}
	for _, n := range union(w.Scores, g.Scores) {
		ws, wok := w.Scores[n]
		gs, gok := g.Scores[n]
		if wok != gok {
			d = append(d, fmt.Sprintf("%s: scores %s: kube scored it %v, ksched %v", key, n, wok, gok))
			continue
		}
		// A plugin kube's runner skipped (PreScore Skip) contributes 0.
		for _, pl := range union(ws.Plugins, gs.Plugins) {
			a, b := ws.Plugins[pl], gs.Plugins[pl]
			if a.Weighted != b.Weighted || (a.Weight != 0 && b.Weight != 0 && a.Normalized != b.Normalized) {
				d = append(d, fmt.Sprintf("%s: score %s %s: kube normalized %d weighted %d, ksched normalized %d weighted %d",
					key, n, pl, a.Normalized, a.Weighted, b.Normalized, b.Weighted))
			}
		}
		if ws.Total != gs.Total {
			d = append(d, fmt.Sprintf("%s: total %s: kube %d, ksched %d", key, n, ws.Total, gs.Total))
		}
	}
	if w.Node != g.Node {
		d = append(d, fmt.Sprintf("%s: node: kube %q, ksched %q", key, w.Node, g.Node))
	}
	switch {
	case len(w.Errors) > 0:
		if !slices.Contains(w.Errors, g.FitError) {
			d = append(d, fmt.Sprintf("%s: error: kube one of %q, ksched %q", key, w.Errors, g.FitError))
		}
	case w.FitError != g.FitError:
		d = append(d, fmt.Sprintf("%s: fitError: kube %q, ksched %q", key, w.FitError, g.FitError))
	}
	return d
}

func union[V any](a, b map[string]V) []string {
	s := map[string]bool{}
	for k := range a {
		s[k] = true
	}
	for k := range b {
		s[k] = true
	}
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// joinDiffs keeps a failure message readable.
func joinDiffs(d []string, max int) string {
	if len(d) > max {
		d = append(d[:max:max], fmt.Sprintf("... and %d more", len(d)-max))
	}
	return strings.Join(d, "\n")
}

// Coverage counts what a report exercised (rejections per plugin and code,
// scored pods, placements), so a passing run shows it compared something.
func Coverage(rep *kubeexplain.Report, into map[string]int) {
	for _, p := range rep.Pods {
		if len(p.Errors) > 0 {
			into["cycles ended in an error"]++
		}
		for _, v := range p.Filter {
			if !v.Feasible && !v.NotEvaluated {
				pl := v.Plugin
				if pl == "" {
					pl = "no plugin (outside PreFilter's node set)"
				}
				key := "rejected by " + pl + " (" + v.Code + ")"
				if strings.HasPrefix(pl, "Volume") || pl == "NodeVolumeLimits" || pl == "DynamicResources" {
					key += ": " + v.Reason // the volume plugins' reasons are few and each a case
				}
				into[key]++
			}
		}
		for _, d := range p.Volumes {
			if d.PV != "" {
				into["claims bound to a static PV"]++
			} else {
				into["claims provisioned"]++
			}
		}
		for _, claim := range p.Claims {
			if claim.Status.Allocation != nil {
				into["claims allocated or reserved"]++
			}
			if claim.Status.Allocation != nil && slices.ContainsFunc(claim.Status.Allocation.Devices.Results,
				func(r resourceapi.DeviceRequestAllocationResult) bool { return len(r.BindingConditions) > 0 }) {
				into["claims given a device with binding conditions"]++
			}
			if _, ok := claim.Annotations[resourceapi.ExtendedResourceClaimAnnotation]; ok && len(p.Scores) > 0 {
				into["pods scored, then given devices for an extended resource"]++
			}
		}
		if len(p.Scores) > 0 {
			into["pods scored"]++
		}
		if p.Node != "" {
			into["pods placed"]++
		} else {
			into["pods left pending"]++
		}
	}
}
