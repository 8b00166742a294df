#!/usr/bin/env bash
# The documented way in (docs/plugin-api.md): a project of its own adds
# ksched with add_subdirectory and builds a binary with a plugin from its
# own tree. This configures such a project around this example's sources,
# checks the generated main() and the link line, and compiles the generated
# main (the libraries are the ones `make build` compiles, so they are not
# rebuilt here).
#
# Usage: examples/out-of-tree-plugin/subproject_test.sh [path/to/ksched-source]
# Prints "N passed, M failed".
set -euo pipefail

ROOT="$(cd "${1:-.}" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# check; PASSED and FAILED.
source "$ROOT/test/e2e/lib.sh"

mkdir -p "$WORK/src/myplugin"
cp "$ROOT"/examples/out-of-tree-plugin/node_label*.{h,cc} "$WORK/src/myplugin/"
rm -f "$WORK/src/myplugin/node_label_test.cc"
# The consumer's own include paths: its headers live under myplugin/.
sed -i 's|examples/out-of-tree-plugin/|myplugin/|' "$WORK"/src/myplugin/*.{h,cc}
cat >"$WORK/src/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES CXX)
set(KSCHED_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(KSCHED_BUILD_BENCH OFF CACHE BOOL "" FORCE)
add_subdirectory("$ROOT" ksched)
ksched_add_plugin(my_nodelabel SOURCES myplugin/node_label.cc myplugin/node_label_args.cc)
target_include_directories(my_nodelabel PUBLIC \${PROJECT_SOURCE_DIR})
ksched_add_scheduler(my-ksched
  PLUGINS my_nodelabel
  HEADERS myplugin/node_label.h
  REGISTRATIONS nodelabel::Registration)
CMAKE

configures() { cmake -S "$WORK/src" -B "$WORK/build" -G Ninja >"$WORK/configure.log" 2>&1 || { tail -20 "$WORK/configure.log"; return 1; }; }
check "a project with add_subdirectory(ksched) configures" configures
generated_main() {
  grep -q 'ksched::app::KschedMain(argc, argv, {' "$WORK/build/my-ksched_main.cc" &&
    grep -q 'nodelabel::Registration(),' "$WORK/build/my-ksched_main.cc" &&
    grep -q '#include "myplugin/node_label.h"' "$WORK/build/my-ksched_main.cc"
}
check "ksched_add_scheduler generates main() with the registration" generated_main
links() {
  ninja -C "$WORK/build" -t commands my-ksched | tail -1 | grep -q 'libksched_main.a' &&
    ninja -C "$WORK/build" -t commands my-ksched | tail -1 | grep -q 'libmy_nodelabel.a'
}
check "the binary links ksched_main and the plugin" links
no_examples() { ! ninja -C "$WORK/build" -t targets all | grep -q 'ksched-with-nodelabel'; }
check "ksched's own examples stay out of the consumer's build" no_examples
compiles_main() {
  ninja -C "$WORK/build" CMakeFiles/my-ksched.dir/my-ksched_main.cc.o >"$WORK/compile.log" 2>&1 || { tail -20 "$WORK/compile.log"; return 1; }
}
check "the generated main compiles against the plugin API" compiles_main

echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
