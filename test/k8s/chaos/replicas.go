package chaos

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ksched.dev/test/k8s/harness"
)

// lifetime is one ksched process: its samples and how it ended.
type lifetime struct {
	Name      string    `json:"name"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end,omitempty"`
	Exit      string    `json:"exit,omitempty"`
	Expected  bool      `json:"expected_exit"` // we killed or stopped it
	RSSkB     []int64   `json:"-"`
	MaxRSSkB  int64     `json:"max_rss_kb"`
	Scheduled float64   `json:"scheduled_last_scrape"` // schedule_attempts_total{result="scheduled"}
	Scrapes   int       `json:"scrapes"`
	AtEnd     bool      `json:"running_at_end"`
	proc      *harness.Process
	port      int
	stopped   bool // SIGSTOPped now
}

// slot is one of the two replica places: its proxy, its configuration and
// the processes that ran in it, one at a time.
type slot struct {
	name    string
	proxy   *proxy
	dep     harness.Deployment
	mu      sync.Mutex
	startMu sync.Mutex // serializes EnsureRunning
	lives   []*lifetime
	gen     int
	onExit  func(l *lifetime)
}

// newSlot writes the slot's kubeconfig (the ksched ServiceAccount's, with
// the proxy as server) and its scheduler configuration.
func newSlot(t testing.TB, name string, cp *harness.ControlPlane, base *harness.Deployment) *slot {
	p, err := newProxy(name, cp.Env["APISERVER_URL"], filepath.Join(cp.Dir, "pki"))
	if err != nil {
		t.Fatalf("proxy %s: %v", name, err)
	}
	t.Cleanup(p.Close)
	cfg, err := os.ReadFile(base.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	var kubeconfigPath string
	for _, line := range strings.Split(string(cfg), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "kubeconfig: "); ok && k == "" {
			kubeconfigPath = v
		}
	}
	kc, err := os.ReadFile(kubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	ownKC := filepath.Join(cp.Dir, "ksched-"+name+".kubeconfig")
	if err := os.WriteFile(ownKC, []byte(strings.Replace(string(kc), cp.Env["APISERVER_URL"], p.URL, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &slot{name: name, proxy: p, dep: *base}
	s.dep.ConfigPath = filepath.Join(cp.Dir, "ksched-"+name+"-config.yaml")
	if err := os.WriteFile(s.dep.ConfigPath, []byte(strings.Replace(string(cfg), kubeconfigPath, ownKC, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// Start runs the slot's next process.
func (s *slot) Start() *lifetime {
	s.mu.Lock()
	s.gen++
	name := fmt.Sprintf("%s-%d", s.name, s.gen)
	s.mu.Unlock()
	s.proxy.SetProcess(name)
	proc := s.dep.Start(name)
	l := &lifetime{Name: name, Start: time.Now(), proc: proc, port: proc.Port}
	s.mu.Lock()
	s.lives = append(s.lives, l)
	s.mu.Unlock()
	go func() {
		<-proc.Done()
		s.mu.Lock()
		l.End, l.Exit = time.Now(), proc.ExitStatus()
		s.mu.Unlock()
		if s.onExit != nil {
			s.onExit(l)
		}
	}()
	return l
}

// EnsureRunning starts a process unless one runs (a restart policy's
// restart; callers may race).
func (s *slot) EnsureRunning() {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.Current() == nil {
		s.Start()
	}
}

// Current is the slot's newest process, nil when it has exited.
func (s *slot) Current() *lifetime {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lives) == 0 {
		return nil
	}
	l := s.lives[len(s.lives)-1]
	if !l.End.IsZero() {
		return nil
	}
	return l
}

// Lives is a snapshot of the slot's processes.
func (s *slot) Lives() []*lifetime {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*lifetime(nil), s.lives...)
}

// Kill ends the current process with SIGKILL (an expected exit).
func (s *slot) Kill(l *lifetime) {
	s.expectExit(l)
	l.proc.Kill()
}

// expectExit marks the process's coming exit as caused by the campaign and
// wakes it if it is stopped, so that a signal reaches it.
func (s *slot) expectExit(l *lifetime) {
	s.mu.Lock()
	l.Expected = true
	s.mu.Unlock()
	_ = l.proc.Signal(syscall.SIGCONT)
}

// Pause sends SIGSTOP; Resume SIGCONT.
func (s *slot) Pause(l *lifetime) {
	s.mu.Lock()
	l.stopped = true
	s.mu.Unlock()
	_ = l.proc.Signal(syscall.SIGSTOP)
}

func (s *slot) Resume(l *lifetime) {
	_ = l.proc.Signal(syscall.SIGCONT)
	s.mu.Lock()
	l.stopped = false
	s.mu.Unlock()
}

// Terminate ends a process with SIGTERM at the end of the run.
func (s *slot) Terminate(l *lifetime) {
	s.expectExit(l)
	_, _, _ = l.proc.Terminate(20 * time.Second)
}

var scrapeClient = &http.Client{Timeout: time.Second}

// Sample reads the process's RSS and its scheduled count (skipped while it
// is stopped: it would not answer).
func (s *slot) Sample(ctx context.Context, l *lifetime) {
	s.mu.Lock()
	stopped, ended := l.stopped, !l.End.IsZero()
	s.mu.Unlock()
	if stopped || ended {
		return
	}
	if mem, err := harness.ProcessMemory(l.proc.Pid()); err == nil {
		kb := mem.RSS
		s.mu.Lock()
		l.RSSkB = append(l.RSSkB, kb)
		if kb > l.MaxRSSkB {
			l.MaxRSSkB = kb
		}
		s.mu.Unlock()
	}
	if v, ok := scrapeScheduled(ctx, l.port); ok {
		s.mu.Lock()
		l.Scheduled, l.Scrapes = v, l.Scrapes+1
		s.mu.Unlock()
	}
}

// scrapeScheduled sums scheduler_schedule_attempts_total{result="scheduled"}
// over the process's profiles.
func scrapeScheduled(ctx context.Context, port int) (float64, bool) {
	families, err := harness.ScrapeURL(ctx, scrapeClient, fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		return 0, false
	}
	return harness.CounterByLabel(families["scheduler_schedule_attempts_total"], "result")["scheduled"], true
}
