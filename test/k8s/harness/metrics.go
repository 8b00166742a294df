package harness

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MetricFamily is what an operator's dashboard depends on in one metric
// family of a /metrics page: its type, help text, label names and, for a
// histogram, its bucket bounds.
type MetricFamily struct {
	Type    string
	Help    string
	Labels  []string // sorted, over every series
	Buckets []float64
}

// ScrapeMetrics reads the replica's /metrics and returns its families by
// name, summarized.
func (p *Process) ScrapeMetrics(ctx context.Context, kind string) (map[string]MetricFamily, error) {
	families, err := p.ScrapeFamilies(ctx, kind)
	if err != nil {
		return nil, err
	}
	out := map[string]MetricFamily{}
	for name, f := range families {
		out[name] = summarize(f)
	}
	return out, nil
}

// ScrapeFamilies reads the replica's /metrics (plain HTTP for ksched, HTTPS
// without verification for kube-scheduler) and returns its families, with
// their series, by name.
func (p *Process) ScrapeFamilies(ctx context.Context, kind string) (map[string]*dto.MetricFamily, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", p.Port)
	client := &http.Client{Timeout: 10 * time.Second}
	if kind == KubeScheduler {
		url = fmt.Sprintf("https://127.0.0.1:%d/metrics", p.Port)
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	}
	return ScrapeURL(ctx, client, url)
}

// ScrapeURL reads a Prometheus text page at url and returns its families,
// with their series, by name.
func ScrapeURL(ctx context.Context, client *http.Client, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", url, err)
	}
	return families, nil
}

// CounterByLabel sums a counter family's series by the value of one label.
func CounterByLabel(f *dto.MetricFamily, label string) map[string]float64 {
	out := map[string]float64{}
	for _, series := range f.GetMetric() {
		for _, l := range series.GetLabel() {
			if l.GetName() == label {
				out[l.GetValue()] += series.GetCounter().GetValue()
			}
		}
	}
	return out
}

func summarize(f *dto.MetricFamily) MetricFamily {
	m := MetricFamily{Type: strings.ToLower(f.GetType().String()), Help: f.GetHelp()}
	labels := map[string]bool{}
	for _, series := range f.GetMetric() {
		for _, l := range series.GetLabel() {
			labels[l.GetName()] = true
		}
		if h := series.GetHistogram(); h != nil && m.Buckets == nil {
			for _, b := range h.GetBucket() {
				m.Buckets = append(m.Buckets, b.GetUpperBound())
			}
		}
	}
	for l := range labels {
		m.Labels = append(m.Labels, l)
	}
	sort.Strings(m.Labels)
	return m
}
