// Replays every fuzz target (fuzz_target.h) on its seed corpus
// (test/fuzz/corpus/<target>/) and its regressions
// (test/fuzz/regressions/<target>/: inputs that once crashed or broke a
// property), in the normal build without libFuzzer. A broken property
// aborts the test binary, naming the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "test/fuzz/fuzz_target.h"

namespace ksched::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = "test/fuzz/corpus";
const fs::path kRegressions = "test/fuzz/regressions";

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `target` on every file of `dir`; returns how many ran.
size_t Replay(const std::string& name, TargetFn target, const fs::path& dir) {
  size_t n = 0;
  for (const fs::path& file : FilesIn(dir / name)) {
    const std::string input = Read(file);
    CurrentInput() = file.string();
    target(input);
    CurrentInput().clear();
    ++n;
  }
  return n;
}

TEST(FuzzReplay, TargetsAreRegistered) {
  const std::set<std::string> expected = {"chunked",      "json_decoder",  "kubeconfig",
                                          "quantity",     "request_head",  "response_head",
                                          "scheduler_config", "watch_event", "watch_stream"};
  std::set<std::string> registered;
  for (const auto& [name, fn] : Targets()) registered.insert(name);
  EXPECT_EQ(registered, expected);
}

TEST(FuzzReplay, EveryTargetHasSeeds) {
  for (const auto& [name, fn] : Targets()) {
    EXPECT_FALSE(FilesIn(kCorpus / name).empty()) << "no seed inputs in " << (kCorpus / name);
  }
}

// A folder for a target that does not exist (a typo, a renamed target)
// would silently replay nothing.
TEST(FuzzReplay, EveryFolderNamesATarget) {
  for (const fs::path& root : {kCorpus, kRegressions}) {
    ASSERT_TRUE(fs::is_directory(root)) << root << " is missing; run from the project root";
    for (const fs::directory_entry& e : fs::directory_iterator(root)) {
      EXPECT_TRUE(e.is_directory() && Targets().count(e.path().filename().string()) == 1)
          << e.path() << " is not a fuzz target's folder";
    }
  }
}

TEST(FuzzReplay, CorpusAndRegressionsKeepTheirProperties) {
  for (const auto& [name, fn] : Targets()) {
    const size_t seeds = Replay(name, fn, kCorpus);
    const size_t regressions = Replay(name, fn, kRegressions);
    std::printf("%s: %zu seeds, %zu regressions replayed\n", name.c_str(), seeds, regressions);
  }
}

}  // namespace
}  // namespace ksched::fuzz
