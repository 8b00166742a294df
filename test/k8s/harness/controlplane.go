package harness

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ControlPlane is one real control plane that scripts/k8s-up.sh started in
// its own directory; the test's cleanup stops it with k8s-down.sh.
type ControlPlane struct {
	Dir         string
	Env         map[string]string // DIR/env: APISERVER_URL, ETCD_URL, ...
	AdminConfig *rest.Config
	Admin       kubernetes.Interface
	t           testing.TB
}

// ControlPlaneOption changes what StartControlPlane starts.
type ControlPlaneOption func(args *[]string)

// WithKubelets adds n real nodes (k8s-up.sh --kubelets n): kubelets with
// containerd, kube-proxy and the default kube-scheduler. Tests using it skip
// themselves first when RealNodesMissing says why they cannot run.
func WithKubelets(n int) ControlPlaneOption {
	return func(args *[]string) { *args = append(*args, "--kubelets", fmt.Sprint(n)) }
}

// WithControllerManagerQPS lets kube-controller-manager's client send qps
// requests a second (k8s-up.sh --kcm-qps), so that controllers keep up
// with a benchmark.
func WithControllerManagerQPS(qps int) ControlPlaneOption {
	return func(args *[]string) { *args = append(*args, "--kcm-qps", fmt.Sprint(qps)) }
}

// StartControlPlane starts a fresh control plane in RunsDir()/<test>/<name>
// (<test> is the top-level test's name).
func StartControlPlane(t testing.TB, name string, opts ...ControlPlaneOption) *ControlPlane {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	dir := filepath.Join(RunsDir(), pathSafe(top), name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(RepoDir(), "scripts", "k8s-up.sh"), dir}
	for _, o := range opts {
		o(&args)
	}
	cmd := exec.Command("bash", args...)
	cmd.Env = append(os.Environ(), "K8S_BIN="+K8sBin())
	out, err := cmd.CombinedOutput()
	cp := &ControlPlane{Dir: dir, t: t}
	t.Cleanup(cp.Stop)
	if err != nil {
		t.Fatalf("k8s-up.sh %s: %v\n%s", dir, err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
	cp.Env = readEnvFile(t, filepath.Join(dir, "env"))
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	// The certificates by content, not path: client-go 1.37 caches transports
	// by CA file path, and a control plane started again in this directory
	// has a new CA there.
	if err := rest.LoadTLSFiles(cfg); err != nil {
		t.Fatal(err)
	}
	cfg.CAFile, cfg.CertFile, cfg.KeyFile = "", "", ""
	cfg.QPS, cfg.Burst = 200, 400
	cp.AdminConfig = cfg
	cp.Admin = kubernetes.NewForConfigOrDie(cfg)
	return cp
}

func readEnvFile(t testing.TB, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env
}

// Stop stops every process k8s-up.sh (or RestartAPIServer) started.
func (cp *ControlPlane) Stop() {
	out, err := exec.Command("bash", filepath.Join(RepoDir(), "scripts", "k8s-down.sh"), cp.Dir).CombinedOutput()
	if err != nil {
		cp.t.Errorf("k8s-down.sh: %v\n%s", err, out)
	}
}

// Kubectl runs kubectl as cluster-admin and returns its standard output.
func (cp *ControlPlane) Kubectl(args ...string) (string, error) {
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", filepath.Join(cp.Dir, "admin.kubeconfig")}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// componentPid is the newest pid recorded for a component in DIR/pids.
func (cp *ControlPlane) componentPid(name string) (int, error) {
	data, err := os.ReadFile(filepath.Join(cp.Dir, "pids"))
	if err != nil {
		return 0, err
	}
	pid := 0
	for _, line := range strings.Split(string(data), "\n") {
		if p, n, ok := strings.Cut(line, " "); ok && n == name {
			pid, _ = strconv.Atoi(p)
		}
	}
	if pid == 0 {
		return 0, fmt.Errorf("no pid for %s in %s/pids", name, cp.Dir)
	}
	return pid, nil
}

// KillAPIServer kills kube-apiserver with SIGKILL and returns once it is
// gone (connections to it are refused from then on).
func (cp *ControlPlane) KillAPIServer(ctx context.Context) error {
	return cp.killComponent(ctx, "kube-apiserver")
}

// RestartAPIServer kills kube-apiserver with SIGKILL and starts it again
// with the command line k8s-up.sh recorded; returns when /readyz is ok.
func (cp *ControlPlane) RestartAPIServer(ctx context.Context) error {
	return cp.restartComponent(ctx, "kube-apiserver")
}

// RestartEtcd kills etcd with SIGKILL and starts it again with the command
// line k8s-up.sh recorded (same data directory, so nothing is lost; with
// --unsafe-no-fsync only what the kernel had not written back could be);
// returns when kube-apiserver's /readyz is ok again.
func (cp *ControlPlane) RestartEtcd(ctx context.Context) error {
	return cp.restartComponent(ctx, "etcd")
}

// RestartKubelet kills the kubelet of a real node (WithKubelets; "node-1")
// with SIGKILL and starts it again with the command line k8s-up.sh
// recorded. Its containerd and the pods' containers keep running; the new
// kubelet finds them and admits the node's pods again, as after a crash.
// Returns when kube-apiserver's /readyz is ok (not when the Node is Ready).
func (cp *ControlPlane) RestartKubelet(ctx context.Context, node string) error {
	return cp.restartComponent(ctx, "nodes/"+node+"/kubelet")
}

// killComponent kills the newest recorded process of name with SIGKILL and
// waits for it to end.
func (cp *ControlPlane) killComponent(ctx context.Context, name string) error {
	pid, err := cp.componentPid(name)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		return os.IsNotExist(err), nil
	}); err != nil {
		return fmt.Errorf("%s %d did not exit: %w", name, pid, err)
	}
	return nil
}

// restartComponent kills name (killComponent), starts it from DIR/name.cmd,
// records its pid, and waits for kube-apiserver's /readyz.
func (cp *ControlPlane) restartComponent(ctx context.Context, name string) error {
	if err := cp.killComponent(ctx, name); err != nil {
		return err
	}
	cmdline, err := os.ReadFile(filepath.Join(cp.Dir, name+".cmd"))
	if err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(cp.Dir, name+".log"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command("bash", "-c", "exec "+string(cmdline))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	pids, err := os.OpenFile(filepath.Join(cp.Dir, "pids"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(pids, "%d %s\n", cmd.Process.Pid, name)
	pids.Close()
	return cp.WaitReady(ctx, 60*time.Second)
}

// WaitReady polls /readyz until it answers ok.
func (cp *ControlPlane) WaitReady(ctx context.Context, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		body, err := cp.Admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(body) == "ok", nil
	})
}

// CompactEtcd compacts etcd's history up to its current revision, so any
// watch or list from an older resourceVersion gets 410 Gone. Returns the
// revision.
func (cp *ControlPlane) CompactEtcd(ctx context.Context) (int64, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{cp.Env["ETCD_URL"]}, DialTimeout: 5 * time.Second})
	if err != nil {
		return 0, err
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "/registry/namespaces/default")
	if err != nil {
		return 0, err
	}
	rev := resp.Header.Revision
	if _, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		return 0, err
	}
	return rev, nil
}
