#!/usr/bin/env bash
# ksched's command line without a cluster: --write-config-to loads,
# defaults and validates the configuration with the flags applied (every
# plugin name and plugin args, by instantiating the profiles) and exits 0,
# or exits non-zero with the precise error; bad flags and feature gates
# exit 2. No API server is started: a run that tried to reach one would
# fail with a different message.
#
# Usage: test/e2e/ksched_cli_test.sh path/to/ksched
# Run from the project root (ctest does). Prints "N passed, M failed".
set -uo pipefail

KSCHED="${1:-build/ksched}"
[[ -x "$KSCHED" ]] || { echo "ksched binary not found: $KSCHED" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

PASSED=0
FAILED=0
# expect NAME CODE PATTERN ARGS...: ksched ARGS exits CODE and its output
# matches the extended regex PATTERN.
expect() {
  local name="$1" code="$2" pattern="$3" rc
  shift 3
  "$KSCHED" --master=http://127.0.0.1:1 "$@" >"$WORK/out" 2>&1
  rc=$?
  if [[ "$rc" == "$code" ]] && grep -qE -- "$pattern" "$WORK/out"; then
    PASSED=$((PASSED + 1))
    echo "ok   $name"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $name (exit $rc, want $code; want output matching: $pattern)"
    sed 's/^/     /' "$WORK/out"
  fi
}

cat >"$WORK/good.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  resourceName: ksched
profiles:
- schedulerName: ksched
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
YAML
cat >"$WORK/unknown-plugin.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  plugins:
    filter:
      enabled:
      - name: NoSuchPlugin
YAML
cat >"$WORK/bad-args.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ksched
  pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 1000
YAML

expect "valid config: written, exit 0" 0 "wrote the configuration" \
  --config "$WORK/good.yaml" --write-config-to "$WORK/out.yaml"
check_written() { grep -q "$1" "$WORK/out.yaml" || { echo "written config lacks: $1"; cat "$WORK/out.yaml"; return 1; }; }
if check_written "resourceName: ksched" && check_written "schedulerName: ksched" && check_written "MostAllocated" &&
  check_written "leaseDuration: 15s"; then
  PASSED=$((PASSED + 1)); echo "ok   the written config is the defaulted one"
else
  FAILED=$((FAILED + 1)); echo "FAIL the written config is the defaulted one"
fi

expect "leader-election flags override the file in the written config" 0 "wrote the configuration" \
  --config "$WORK/good.yaml" --leader-elect-resource-name=other --leader-elect-lease-duration=30s \
  --leader-elect-renew-deadline=20s --write-config-to "$WORK/out.yaml"
if check_written "resourceName: other" && check_written "leaseDuration: 30s" && check_written "renewDeadline: 20s"; then
  PASSED=$((PASSED + 1)); echo "ok   the flags' values were written"
else
  FAILED=$((FAILED + 1)); echo "FAIL the flags' values were written"
fi

expect "unknown plugin: exit 1, names it with file:line:col" 1 \
  "unknown-plugin.yaml:8:[0-9]+: .*NoSuchPlugin" \
  --config "$WORK/unknown-plugin.yaml" --write-config-to "$WORK/x.yaml"
expect "bad plugin args: exit 1, names the field" 1 "hardPodAffinityWeight" \
  --config "$WORK/bad-args.yaml" --write-config-to "$WORK/x.yaml"
expect "inconsistent leader-election flags: exit 1, names the field" 1 "leaderElection.leaseDuration" \
  --config "$WORK/good.yaml" --leader-elect-lease-duration=5s --write-config-to "$WORK/x.yaml"
expect "missing config file: exit 1" 1 "cannot read scheduler configuration" \
  --config "$WORK/nope.yaml" --write-config-to "$WORK/x.yaml"
expect "resource lock other than leases: exit 2" 2 'only "leases" is supported' \
  --leader-elect-resource-lock=endpointsleases
expect "bad duration flag: exit 2" 2 "leader-elect-retry-period" --leader-elect-retry-period=2
# Feature gates are checked against the chosen minor's list as kube checks
# them: a gate of that kube-scheduler that ksched does not model is accepted
# with a warning, so kube-scheduler's command lines work unchanged; an
# unknown gate, a malformed value or another component is an error.
expect "unmodelled kube gate: warned, ignored" 0 "feature-gates SchedulerPreQueueingHints is ignored" \
  --emulated-version=1.37 --feature-gates=kube:SchedulerPreQueueingHints=false --write-config-to "$WORK/x.yaml"
expect "unknown feature gate: exit 2 with kube's text" 2 "unrecognized feature gate: NoSuchGate" \
  --feature-gates=kube:NoSuchGate=true --write-config-to "$WORK/x.yaml"
expect "bad feature gate value: exit 2" 2 "feature-gates" --feature-gates=SchedulerQueueingHints=maybe \
  --write-config-to "$WORK/x.yaml"
expect "a kube-scheduler command line is accepted" 0 "wrote the configuration" \
  --authentication-kubeconfig=/etc/kubernetes/scheduler.conf --authorization-kubeconfig=/etc/kubernetes/scheduler.conf \
  --bind-address=127.0.0.1 --kube-api-qps=100 --kube-api-burst=200 --profiling=false --logging-format=json \
  --leader-elect=true --v=2 --write-config-to "$WORK/x.yaml"
expect "ignored flags say why, in JSON" 0 '"msg":"--profiling is ignored: ksched serves no /debug/pprof' \
  --profiling=false --logging-format=json --write-config-to "$WORK/x.yaml"
expect "deprecated flags with --config: warned, ignored" 0 "--kube-api-qps is ignored: a --config file is given" \
  --config "$WORK/good.yaml" --kube-api-qps=100 --write-config-to "$WORK/x.yaml"
expect "deprecated flags without --config land in the configuration" 0 "wrote the configuration" \
  --kube-api-qps=77 --leader-elect=false --write-config-to "$WORK/deprecated.yaml"
if grep -qE "qps: 77" "$WORK/deprecated.yaml"; then
  PASSED=$((PASSED + 1)); echo "ok   --kube-api-qps=77 is clientConnection.qps"
else
  FAILED=$((FAILED + 1)); echo "FAIL --kube-api-qps=77 is not in the written configuration"; cat "$WORK/deprecated.yaml"
fi
expect "unknown flag: exit 2" 2 "unknown flag: --no-such-flag" --no-such-flag
expect "feature gates are accepted" 0 "behaving as kube-scheduler 1.36 \\(from --emulated-version\\)" \
  --emulated-version=1.36 --feature-gates=SchedulerQueueingHints=true,SchedulerPopFromBackoffQ=false \
  --write-config-to "$WORK/x.yaml"
expect "a gate locked in v1.34: exit as kube-scheduler does" 2 "feature is locked to true" \
  --emulated-version=kube=1.34 --feature-gates=SchedulerQueueingHints=false --write-config-to "$WORK/x.yaml"
expect "a gate gone in v1.37 is unknown there" 2 "unrecognized feature gate: SchedulerQueueingHints" \
  --emulated-version=1.37 --feature-gates=SchedulerQueueingHints=true --write-config-to "$WORK/x.yaml"
expect "an emulated version out of range: exit 2" 2 "emulation version 1.33 is not between \\[1.34, 1.37\\]" \
  --emulated-version=1.33
expect "--version" 0 "^ksched v" --version
expect "--help lists the leader-election flags" 0 "leader-elect-resource-namespace" --help

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
