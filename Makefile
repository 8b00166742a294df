# ksched — developer entry points. Every target does its own set-up: it
# installs missing Debian packages (scripts/install-deps.sh), configures CMake
# and builds what it needs, so `make test` and `make demo` work on a fresh
# Debian 12 machine.

BUILD_TYPE ?= Release
BUILD_DIR  ?= build
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
CTEST_ARGS ?=

DEPS_STAMP := $(BUILD_DIR)/.deps-ok

# ccache: rewrite absolute paths relative to the build directory so that
# clean checkouts elsewhere (CI clones) reuse cached objects.
CCACHE_BASEDIR ?= /
CCACHE_NOHASHDIR ?= 1
export CCACHE_BASEDIR CCACHE_NOHASHDIR

# The real Kubernetes components the k8s suite runs (built from Go modules by
# scripts/build-k8s.sh): v1.37 by default, or K8S_VERSION=v1.34|v1.35|v1.36
# (test/k8s/release-1.NN). The default release's binaries and test programs
# go to build/k8s (where ctest runs them), another release's to
# build/k8s/v1.NN.
K8S_DEFAULT_VERSION := v1.37
K8S_VERSION ?= $(K8S_DEFAULT_VERSION)
ifeq ($(K8S_VERSION),$(K8S_DEFAULT_VERSION))
K8S_OUT ?= $(BUILD_DIR)/k8s
else
K8S_OUT ?= $(BUILD_DIR)/k8s/$(K8S_VERSION)
endif
K8S_BIN_DIR ?= $(K8S_OUT)/bin

.PHONY: all deps configure build install examples k8s kube-feature-gates test test-k8s test-nodes k8s-diff k8s-matrix plugincompare-long test-sanitize test-tsan test-tsan-ci test-slow bench insn-baseline bench-side-by-side bench-dra-side-by-side bench-start-over bench-event-to-bind bench-kube-scheduler-perf demo image fuzz fuzz-build fuzz-smoke clean help

all: build

help:
	@echo "make build          Release build: build/ksched, build/kube-apiserver-lite, build/bench/*"
	@echo "make examples       build/examples/*: ksched with the out-of-tree plugins of examples/"
	@echo "make test           build and run every test (ctest), the real-control-plane suite included,"
	@echo "                    then every fuzz target for FUZZ_SMOKE_SECONDS (15; 0 skips them)"
	@echo "make k8s            build etcd, kube-apiserver, kube-controller-manager, kube-scheduler and helm"
	@echo "                    (v1.37; K8S_VERSION=v1.34|v1.35|v1.36), the suite's test binaries, the gate-list generators"
	@echo "make kube-feature-gates  regenerate pkg/scheduler/framework/kube_feature_gates.inc (kube-scheduler's"
	@echo "                    feature gates at v1.34..v1.37) from the Go modules"
	@echo "make test-k8s       only the real-control-plane suite (ctest label k8s)"
	@echo "make test-nodes     ksched installed by helm on real kubelets, scraped by Prometheus (root; minutes)"
	@echo "make chaos          the fault campaign on a real control plane (CHAOS_DURATION=30m, CHAOS_SEED=random)"
	@echo "make k8s-diff       the suite's scenarios against K8S_VERSION's binaries, divergences listed, not failed"
	@echo "make k8s-matrix     suite, plugincompare, celcompare and kubeexplain at each of K8S_MATRIX_VERSIONS"
	@echo "                    (v1.35 v1.36 v1.37; ~20 min each), tables written into docs/conformance.md"
	@echo "make plugincompare-long  the plugin-by-plugin comparison with kube-scheduler over PLUGINCOMPARE_SEEDS (100000) clusters"
	@echo "make test-sanitize  same tests under ASan+UBSan (build-sanitize/)"
	@echo "make test-tsan      same tests under ThreadSanitizer (build-tsan/)"
	@echo "make test-tsan-ci   the concurrency-heavy subset under ThreadSanitizer (part of make test)"
	@echo "make bench          Google Benchmark binaries and the scheduler_perf harness"
	@echo "make insn-baseline  rewrite test/bench/instructions_baseline.tsv: instructions per pod under callgrind"
	@echo "make bench-side-by-side  ksched and kube-scheduler on a real control plane, alternated (REPEAT=3)"
	@echo "make bench-dra-side-by-side  kube's DRA scheduler_perf workload, both schedulers (DRA_WORKLOADS, REPEAT=3)"
	@echo "make bench-start-over  each scheduler starting over 5,000 nodes and 10,000 pending pods (peak RSS; REPEAT=1)"
	@echo "make bench-event-to-bind  how soon each binds a waiting pod after a node, pod or PV event (RUNS=10)"
	@echo "make bench-kube-scheduler-perf  kube-scheduler's own scheduler_perf benchmark on this machine"
	@echo "make demo           the bundled API server, a small cluster and ksched scheduling it"
	@echo "make fuzz           every libFuzzer target (test/fuzz) for FUZZ_SECONDS (300) each, in build-fuzz/"
	@echo "make image          container image ksched:<version> with podman (or a Docker engine), no registry"
	@echo "make install        ksched and kubectl-ksched (the kubectl plugin) into PREFIX/bin (PREFIX=/usr/local)"
	@echo "make clean          remove build directories"

# Installs missing packages once per build directory.
$(DEPS_STAMP):
	@bash scripts/install-deps.sh
	@mkdir -p $(BUILD_DIR) && touch $@

deps:
	@bash scripts/install-deps.sh

# configure_dir(dir, build type, extra args)
define configure_dir
	@if [ ! -f $(1)/build.ninja ]; then \
	  cmake -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=$(2) $(3) $(CMAKE_ARGS); \
	fi
endef

configure: $(DEPS_STAMP)
	$(call configure_dir,$(BUILD_DIR),$(BUILD_TYPE),)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# examples/: ksched binaries with out-of-tree plugins (docs/plugin-api.md),
# e.g. build/examples/ksched-with-nodelabel. `make build` builds them too.
examples: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target examples

# The real components, the suite's test binaries and the feature-gate list's
# generators (one per reference release, for ctest's k8s/kube-feature-gates);
# incremental through Go's build cache.
k8s: $(DEPS_STAMP)
	@bash scripts/build-k8s.sh $(K8S_VERSION) $(K8S_BIN_DIR)
	@bash scripts/build-kube-feature-gates.sh $(BUILD_DIR)/k8s
	@bash scripts/build-k8s-programs.sh $(K8S_VERSION) $(K8S_OUT)

# kube-scheduler's feature gates at each reference release, as the C++ data
# file the version table includes.
kube-feature-gates: $(DEPS_STAMP)
	@bash scripts/build-kube-feature-gates.sh $(BUILD_DIR)/k8s
	@bash scripts/kube-feature-gates.sh $(BUILD_DIR)/k8s pkg/scheduler/framework/kube_feature_gates.inc

# Fast, deterministic suites and the real-control-plane suite; slow ones
# carry the ctest label "slow" and run with `make test-slow`. Then the
# concurrency-heavy subset under ThreadSanitizer (test-tsan-ci) and a short
# run of every fuzz target (fuzz-smoke).
test: build k8s
	@bash scripts/timed.sh "ctest" sh -c "cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE '^(slow|nodes)$$' $(CTEST_ARGS)"
	@bash scripts/timed.sh "the TSan subset" $(MAKE) --no-print-directory test-tsan-ci
	@bash scripts/timed.sh "the fuzz smoke" $(MAKE) --no-print-directory fuzz-smoke

test-k8s: build k8s
	cd $(BUILD_DIR) && ctest --output-on-failure -L k8s -LE '^nodes$$' $(CTEST_ARGS)

# The fault campaign (test/k8s/chaos, docs/reliability.md): two ksched
# replicas behind fault-injecting proxies, seeded random load and faults,
# invariants checked throughout; the JSON record goes to CHAOS_JSON. The
# smoke of it (k8s/chaos-smoke, fixed seed) runs in `make test`.
CHAOS_DURATION ?= 30m
CHAOS_SEED ?=
CHAOS_JSON ?= $(abspath $(BUILD_DIR))/chaos.json
chaos: build k8s
	cd $(BUILD_DIR) && KSCHED_REPO=$(CURDIR) KSCHED_BUILD=$(abspath $(BUILD_DIR)) K8S_BIN=$(abspath $(K8S_BIN_DIR)) \
	  CHAOS_DURATION=$(CHAOS_DURATION) CHAOS_SEED=$(CHAOS_SEED) CHAOS_JSON=$(CHAOS_JSON) \
	  $(abspath $(BUILD_DIR))/k8s/chaos.test -test.run '^TestChaos$$' -test.v -test.timeout 0

# Every scenario against another release line's binaries: the divergences
# from ksched go to $(BUILD_DIR)/k8s/divergences-$(K8S_VERSION).md.
k8s-diff: build k8s
	rm -f $(BUILD_DIR)/k8s/divergences-$(K8S_VERSION).md
	K8S_BIN=$(abspath $(K8S_BIN_DIR)) K8S_RUNS=$(abspath $(BUILD_DIR))/k8s/runs-$(K8S_VERSION) \
	  K8S_DIFF_REPORT=$(abspath $(BUILD_DIR))/k8s/divergences-$(K8S_VERSION).md \
	  KSCHED_REPO=$(CURDIR) KSCHED_BUILD=$(abspath $(BUILD_DIR)) \
	  $(BUILD_DIR)/k8s/suite.test -test.v -test.timeout 60m
	@echo "k8s-diff: divergences at $(K8S_VERSION) in $(BUILD_DIR)/k8s/divergences-$(K8S_VERSION).md"

# Every comparison at each reference release, the results written as
# docs/conformance.md's per-release tables (scripts/k8s-matrix.sh).
K8S_MATRIX_VERSIONS ?= v1.35 v1.36 v1.37
k8s-matrix: build
	@bash scripts/k8s-matrix.sh $(BUILD_DIR) $(K8S_MATRIX_VERSIONS)

# The plugin-by-plugin comparison at length (make test runs 1000 seeds):
# niced (it shares the machine), every failing seed reported, a progress
# line every 10,000 seeds and every minute.
PLUGINCOMPARE_SEEDS ?= 100000
plugincompare-long: build k8s
	cd test/k8s/plugincompare && KSCHED_BUILD=$(abspath $(BUILD_DIR)) PLUGINCOMPARE_SEEDS=$(PLUGINCOMPARE_SEEDS) \
	  PLUGINCOMPARE_KEEP_GOING=1 nice -n 10 $(abspath $(BUILD_DIR))/k8s/plugincompare.test -test.v -test.timeout 0 \
	  -test.run TestPluginByPlugin

# ksched installed by helm on real kubelets and scraped by Prometheus
# (ctest label nodes: k8s/helm-on-nodes, several minutes; needs root), with
# a Prometheus that has Kubernetes service discovery (Debian's has none).
test-nodes: build k8s
	@bash scripts/build-prometheus.sh $(K8S_BIN_DIR)
	cd $(BUILD_DIR) && ctest --output-on-failure -L '^nodes$$' $(CTEST_ARGS)

test-slow: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L slow $(CTEST_ARGS)

test-sanitize: $(DEPS_STAMP)
	$(call configure_dir,build-sanitize,sanitize,-DKSCHED_BUILD_BENCH=OFF)
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ASAN_OPTIONS="fast_unwind_on_malloc=0" \
	  LSAN_OPTIONS="suppressions=$(CURDIR)/scripts/lsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -LE '^(slow|nodes)$$' $(CTEST_ARGS)

test-tsan: $(DEPS_STAMP)
	$(call configure_dir,build-tsan,tsan,-DKSCHED_BUILD_BENCH=OFF)
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -LE '^(slow|nodes)$$' $(CTEST_ARGS)

# The concurrency-heavy unit tests under ThreadSanitizer, in `make test`:
# the work queues, the scheduling queue, the informers, the REST client, the
# API writer, leader election, the binding pool and the Parallelizer (with
# the rest of pkg/util), the node memo's keys and the framework's shared skip
# sets. Only their targets are built in build-tsan/; `make test-tsan` runs
# everything.
TSAN_CI_TESTS := workqueue_test queue_test queue_concurrency_test informer_test client_test apiwriter_test \
  leaderelection_test binding_pool_test util_test shared_value_test framework_test framework_runtime_test
empty :=
space := $(empty) $(empty)
test-tsan-ci: $(DEPS_STAMP)
	$(call configure_dir,build-tsan,tsan,-DKSCHED_BUILD_BENCH=OFF)
	cmake --build build-tsan -j $(JOBS) --target $(TSAN_CI_TESTS)
	cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -R '^($(subst $(space),|,$(TSAN_CI_TESTS)))$$' $(CTEST_ARGS)

bench: build
	@bash scripts/run-benchmarks.sh $(BUILD_DIR)

# The instruction-count guard's baseline (ctest perf/instructions_per_pod):
# every workload of test/bench/insn_count_main.cc under callgrind, INSN_RUNS
# times each (median), written to test/bench/instructions_baseline.tsv.
insn-baseline: build
	$(BUILD_DIR)/bench/insn_count --write --runs $(or $(INSN_RUNS),3) \
	  --baseline test/bench/instructions_baseline.tsv --work-dir $(BUILD_DIR)/bench-results/insn

# ksched and kube-scheduler side by side on a real control plane, alternated,
# three runs each (docs/performance.md); REPEAT=N changes the count.
bench-side-by-side: build k8s
	$(BUILD_DIR)/bench/scheduler_perf --mode k8s --scheduler both --repeat $(or $(REPEAT),3) \
	  --k8s-bin $(K8S_BIN_DIR) --ksched-binary $(BUILD_DIR)/ksched

# kube's scheduler_perf DRA workload SchedulingWithResourceClaimTemplate,
# each scheduler on its own control plane, alternated (docs/performance.md):
# DRA_WORKLOADS names the sizes (test/k8s/draperf), REPEAT the runs.
DRA_WORKLOADS ?= 2000pods_200nodes,5000pods_500nodes
bench-dra-side-by-side: build k8s
	mkdir -p $(BUILD_DIR)/bench-results
	KSCHED_REPO=$(CURDIR) KSCHED_BUILD=$(abspath $(BUILD_DIR)) K8S_BIN=$(abspath $(K8S_BIN_DIR)) \
	  DRA_PERF_WORKLOADS=$(DRA_WORKLOADS) DRA_PERF_REPEAT=$(or $(REPEAT),3) \
	  DRA_PERF_OUT=$(abspath $(BUILD_DIR))/bench-results/dra_side_by_side.json \
	  $(abspath $(BUILD_DIR))/k8s/draperf.test -test.run '^TestDRASideBySide$$' -test.v -test.timeout 120m

# Each scheduler starting over a cluster that holds 5,000 nodes and 10,000
# pending pods: peak RSS, CPU, time until all are bound (docs/performance.md;
# STARTOVER_NODES and STARTOVER_PODS change the size).
bench-start-over: build k8s
	KSCHED_REPO=$(CURDIR) KSCHED_BUILD=$(abspath $(BUILD_DIR)) K8S_BIN=$(abspath $(K8S_BIN_DIR)) \
	  STARTOVER_REPEAT=$(or $(REPEAT),1) \
	  $(abspath $(BUILD_DIR))/k8s/startover.test -test.run '^TestStartOver$$' -test.v -test.timeout 120m

# How soon each scheduler binds a waiting pod after a node is added, a pod
# deleted, a PV created: RUNS times each (default 10), one scheduler
# after the other (docs/performance.md).
bench-event-to-bind: build k8s
	mkdir -p $(BUILD_DIR)/bench-results
	cd $(BUILD_DIR) && KSCHED_REPO=$(CURDIR) KSCHED_BUILD=$(abspath $(BUILD_DIR)) K8S_BIN=$(abspath $(K8S_BIN_DIR)) \
	  EVENT_TO_BIND_RUNS=$(or $(RUNS),10) EVENT_TO_BIND_OUT=$(abspath $(BUILD_DIR))/bench-results/event_to_bind.json \
	  $(abspath $(BUILD_DIR))/k8s/eventlatency.test -test.run '^TestEventToBind$$' -test.v -test.timeout 60m

# kube-scheduler's own scheduler_perf benchmark on this machine.
bench-kube-scheduler-perf: k8s
	BUILD_DIR=$(abspath $(BUILD_DIR)) K8S_BIN=$(abspath $(K8S_BIN_DIR)) bash scripts/kube-scheduler-perf.sh

# Only the two binaries the demo runs, not the tests and benchmarks.
demo: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ksched kube-apiserver-lite
	@bash scripts/demo.sh $(BUILD_DIR)

# The libFuzzer targets (test/fuzz) in their own clang build, ASan/UBSan
# throughout; only the targets and the libraries they link are built.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 15
fuzz-build: $(DEPS_STAMP)
	$(call configure_dir,$(FUZZ_DIR),fuzz,-DCMAKE_CXX_COMPILER=clang++ -DKSCHED_BUILD_FUZZ=ON -DKSCHED_BUILD_TESTS=OFF -DKSCHED_BUILD_BENCH=OFF)
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_targets

# What `make test` runs: each target briefly; a crash fails the build and
# its reproducer stays under $(FUZZ_DIR)/fuzz/<target>/artifacts/.
fuzz-smoke:
ifneq ($(FUZZ_SMOKE_SECONDS),0)
	@$(MAKE) --no-print-directory fuzz-build
	FUZZ_SMOKE=1 FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) bash scripts/run-fuzz.sh $(FUZZ_DIR)
endif

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/run-fuzz.sh $(FUZZ_DIR)

# The container image ksched:<version> from build/ksched (scripts/image.sh):
# a Debian 12 base bootstrapped once from the apt mirror, podman or a Docker
# engine, nothing from a registry. From source with Docker: see Dockerfile.
image: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ksched
	bash scripts/image.sh build $(BUILD_DIR)

PREFIX ?= /usr/local
install: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ksched kubectl-ksched
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD_DIR) build-sanitize build-tsan $(FUZZ_DIR)
