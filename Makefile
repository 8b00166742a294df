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

.PHONY: all deps configure build test test-sanitize test-tsan test-slow bench demo image fuzz clean help

all: build

help:
	@echo "make build          Release build: build/ksched, build/kube-apiserver-lite, build/bench/*"
	@echo "make test           build and run every test (ctest)"
	@echo "make test-sanitize  same tests under ASan+UBSan (build-sanitize/)"
	@echo "make test-tsan      same tests under ThreadSanitizer (build-tsan/)"
	@echo "make bench          Google Benchmark binaries and the scheduler_perf harness"
	@echo "make demo           the bundled API server, a small cluster and ksched scheduling it"
	@echo "make fuzz           libFuzzer targets for the JSON decoder and the Quantity parser"
	@echo "make image          docker build (needs a Docker engine)"
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

# Fast, deterministic suites; slow ones carry the ctest label "slow" and run
# with `make test-slow`.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_ARGS)

test-slow: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L slow $(CTEST_ARGS)

test-sanitize: $(DEPS_STAMP)
	$(call configure_dir,build-sanitize,sanitize,-DKSCHED_BUILD_BENCH=OFF)
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ASAN_OPTIONS="fast_unwind_on_malloc=0" \
	  LSAN_OPTIONS="suppressions=$(CURDIR)/scripts/lsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_ARGS)

test-tsan: $(DEPS_STAMP)
	$(call configure_dir,build-tsan,tsan,-DKSCHED_BUILD_BENCH=OFF)
	cmake --build build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/tsan.supp" \
	  ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_ARGS)

bench: build
	@bash scripts/run-benchmarks.sh $(BUILD_DIR)

demo: build
	@bash scripts/demo.sh $(BUILD_DIR)

fuzz: $(DEPS_STAMP)
	$(call configure_dir,build-fuzz,Debug,-DCMAKE_CXX_COMPILER=clang++ -DKSCHED_BUILD_FUZZ=ON -DKSCHED_BUILD_TESTS=OFF -DKSCHED_BUILD_BENCH=OFF)
	cmake --build build-fuzz -j $(JOBS) --target json_decoder_fuzz quantity_fuzz
	@bash scripts/run-fuzz.sh build-fuzz

image:
	docker build -t ksched:$$(sed -n 's/^project(ksched VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt) .

clean:
	rm -rf $(BUILD_DIR) build-sanitize build-tsan build-fuzz
