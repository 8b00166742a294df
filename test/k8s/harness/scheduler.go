package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The two schedulers the suite compares.
const (
	KSched        = "ksched"
	KubeScheduler = "kube-scheduler"
)

// ProfileName is the schedulerName of the one profile both schedulers run,
// so the same pods go to whichever scheduler the control plane has.
const ProfileName = "ksched"

// LeaderElection configures leaderElection in the scheduler configuration.
type LeaderElection struct {
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// SchedulerOptions are what a scenario may vary; everything else is the
// same KubeSchedulerConfiguration for both schedulers.
type SchedulerOptions struct {
	LeaderElection *LeaderElection // nil: leaderElect false
	ProfileYAML    string          // extra lines under the profile (indented by 4)
	// clientConnection qps and burst; 0: 200 and 400.
	ClientQPS   float64
	ClientBurst int
}

// Deployment is a scheduler installed on a control plane with its own
// credentials and configuration; Start runs replicas of it.
type Deployment struct {
	Kind       string
	ConfigPath string
	cp         *ControlPlane
	t          testing.TB
}

// Deploy installs a scheduler of the given kind on the control plane:
//   - ksched as operators deploy it: manifests/00-namespace.yaml and
//     01-rbac.yaml applied with kubectl, a token for the ksched
//     ServiceAccount from the TokenRequest API, and a kubeconfig holding only
//     that token and the cluster CA (TLS verified);
//   - kube-scheduler as kubeadm deploys it: the system:kube-scheduler client
//     certificate k8s-up.sh signed.
func Deploy(t testing.TB, cp *ControlPlane, kind string, opts SchedulerOptions) *Deployment {
	t.Helper()
	d := &Deployment{Kind: kind, cp: cp, t: t}
	var kubeconfig, leaseName, leaseNamespace string
	switch kind {
	case KSched:
		kubeconfig = d.kschedKubeconfig()
		leaseName, leaseNamespace = "ksched", "ksched-system"
	case KubeScheduler:
		kubeconfig = filepath.Join(cp.Dir, "scheduler.kubeconfig")
		// The bootstrap system:kube-scheduler role may hold only this Lease.
		leaseName, leaseNamespace = "kube-scheduler", "kube-system"
	default:
		t.Fatalf("unknown scheduler %q", kind)
	}
	le := "  leaderElect: false\n"
	if l := opts.LeaderElection; l != nil {
		le = fmt.Sprintf("  leaderElect: true\n  leaseDuration: %s\n  renewDeadline: %s\n  retryPeriod: %s\n"+
			"  resourceLock: leases\n  resourceName: %s\n  resourceNamespace: %s\n",
			l.LeaseDuration, l.RenewDeadline, l.RetryPeriod, leaseName, leaseNamespace)
	}
	qps, burst := opts.ClientQPS, opts.ClientBurst
	if qps == 0 {
		qps = 200
	}
	if burst == 0 {
		burst = 400
	}
	config := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		"clientConnection:\n  kubeconfig: " + kubeconfig + fmt.Sprintf("\n  qps: %g\n  burst: %d\n", qps, burst) +
		"leaderElection:\n" + le +
		"profiles:\n- schedulerName: " + ProfileName + "\n" + opts.ProfileYAML
	d.ConfigPath = filepath.Join(cp.Dir, kind+"-config.yaml")
	if err := os.WriteFile(d.ConfigPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *Deployment) kschedKubeconfig() string {
	manifests := filepath.Join(RepoDir(), "manifests")
	if out, err := d.cp.Kubectl("apply", "-f", filepath.Join(manifests, "00-namespace.yaml"),
		"-f", filepath.Join(manifests, "01-rbac.yaml")); err != nil {
		d.t.Fatalf("applying the manifests' RBAC: %v\n%s", err, out)
	}
	return ServiceAccountKubeconfig(d.t, d.cp, "ksched-system", "ksched")
}

// ServiceAccountKubeconfig writes a kubeconfig holding only a token of the
// ServiceAccount namespace/name (TokenRequest API) and the cluster CA, and
// returns its path.
func ServiceAccountKubeconfig(t testing.TB, cp *ControlPlane, namespace, name string) string {
	t.Helper()
	expiry := int64(4 * 3600)
	tr, err := cp.Admin.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", namespace, name, err)
	}
	path := filepath.Join(cp.Dir, name+".kubeconfig")
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: ksched
  user:
    token: %s
contexts:
- name: test
  context: {cluster: test, user: ksched, namespace: %s}
current-context: test
`, cp.Env["APISERVER_URL"], cp.Env["CA_CRT"], tr.Status.Token, namespace)
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Process is one running scheduler replica.
type Process struct {
	Name    string
	LogPath string
	// Port of a replica started by Deployment.Start on 127.0.0.1: ksched's
	// plain --http-port (/debug/pending, /metrics, no authentication) or
	// kube-scheduler's --secure-port (HTTPS; /metrics allowed without
	// authorization).
	Port int
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs a replica; the test's cleanup stops it (SIGTERM, then SIGKILL).
func (d *Deployment) Start(replica string) *Process {
	d.t.Helper()
	port := freePort(d.t)
	var cmd *exec.Cmd
	switch d.Kind {
	case KSched:
		cmd = exec.Command(filepath.Join(BuildDir(), "ksched"), "--config="+d.ConfigPath,
			"--secure-port=0", fmt.Sprintf("--http-port=%d", port), "--bind-address=127.0.0.1", "--v=2")
	case KubeScheduler:
		cmd = exec.Command(filepath.Join(K8sBin(), "kube-scheduler"), "--config="+d.ConfigPath,
			fmt.Sprintf("--secure-port=%d", port), "--bind-address=127.0.0.1", "--v=2",
			"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics")
	}
	p := StartProcess(d.t, cmd, replica, filepath.Join(d.cp.Dir, replica+".log"))
	p.Port = port
	return p
}

// StartProcess runs cmd with its stdout and stderr in logPath; the test's
// cleanup stops it (SIGTERM, then SIGKILL).
func StartProcess(t testing.TB, cmd *exec.Cmd, name, logPath string) *Process {
	t.Helper()
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	log, err := os.Create(p.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.Stop(t) })
	return p
}

// Pid is the process id (for reading /proc/PID, say its memory).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL and waits for the process to end.
func (p *Process) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Signal sends sig (SIGSTOP, SIGCONT, ...) without waiting.
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitStatus describes how an ended process ended ("exit status 1",
// "signal: killed"); "" while it runs.
func (p *Process) ExitStatus() string {
	if !p.Exited() || p.cmd.ProcessState == nil {
		return ""
	}
	return p.cmd.ProcessState.String()
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop ends the replica as a Deployment's rollout would: SIGTERM, then
// SIGKILL after 20 s.
func (p *Process) Stop(t testing.TB) {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Errorf("%s did not exit 20 s after SIGTERM", p.Name)
		p.Kill()
	}
}

// Terminate sends SIGTERM and waits up to `limit` for the process to end;
// it returns the exit code and how long the exit took, or an error (after
// a SIGKILL) when it did not end in time.
func (p *Process) Terminate(limit time.Duration) (int, time.Duration, error) {
	start := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), time.Since(start), nil
	case <-time.After(limit):
		p.Kill()
		return -1, time.Since(start), fmt.Errorf("%s did not exit within %v of SIGTERM", p.Name, limit)
	}
}

// LogTail is the end of the replica's log, for failure messages.
func (p *Process) LogTail(lines int) string {
	data, _ := os.ReadFile(p.LogPath)
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
