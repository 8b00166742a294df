// kube-explain runs kube-scheduler's framework (the pinned in-tree plugins)
// plugin by plugin over a cluster snapshot and writes, per pending pod, the
// same JSON as `ksched simulate --explain -o json --tie-break lowest-name`
// (filter verdicts, per-plugin scores, totals, chosen node). It is the
// oracle of the plugin-by-plugin comparison (test/k8s/plugincompare).
//
//	kube-explain [--config FILE] --cluster PATH [--cluster PATH...]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"ksched.dev/test/k8s/kubeexplain"
)

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	var clusters paths
	configPath := flag.String("config", "", "KubeSchedulerConfiguration file (default: kube-scheduler's defaults)")
	flag.Var(&clusters, "cluster", "snapshot file or folder (repeatable)")
	flag.Parse()
	if len(clusters) == 0 {
		fmt.Fprintln(os.Stderr, "kube-explain: --cluster is required")
		os.Exit(2)
	}
	if err := run(*configPath, clusters); err != nil {
		fmt.Fprintln(os.Stderr, "kube-explain:", err)
		os.Exit(1)
	}
}

func run(configPath string, clusters []string) error {
	cfg, err := kubeexplain.LoadConfig(configPath)
	if err != nil {
		return err
	}
	c, err := kubeexplain.LoadFiles(clusters...)
	if err != nil {
		return err
	}
	rep, err := kubeexplain.Run(context.Background(), cfg, c)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
