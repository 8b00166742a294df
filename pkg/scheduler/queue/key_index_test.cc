#include "pkg/scheduler/queue/key_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "pkg/scheduler/queue/heap.h"

namespace ksched::scheduler::queue {
namespace {

// Keys live in a vector indexed by id, as in the containers that use it.
struct Keys {
  std::vector<std::string> str;
  std::vector<size_t> hash;
  uint32_t Find(const KeyIndex& index, const std::string& key) const {
    return index.Find(StringHash{}(key), [&](uint32_t id) { return str[id] == key; });
  }
};

TEST(KeyIndexTest, InsertFindErase) {
  KeyIndex index;
  Keys keys;
  EXPECT_EQ(keys.Find(index, "a"), KeyIndex::kNone);
  for (const char* k : {"a", "b", "c"}) {
    keys.str.push_back(k);
    keys.hash.push_back(StringHash{}(keys.str.back()));
    index.Insert(keys.hash.back(), static_cast<uint32_t>(keys.str.size() - 1));
  }
  EXPECT_EQ(index.size(), 3u);
  EXPECT_EQ(keys.Find(index, "b"), 1u);
  index.Erase(keys.hash[1], 1);
  EXPECT_EQ(keys.Find(index, "b"), KeyIndex::kNone);
  EXPECT_EQ(keys.Find(index, "a"), 0u);
  EXPECT_EQ(keys.Find(index, "c"), 2u);
  index.Clear();
  EXPECT_TRUE(index.empty());
  EXPECT_EQ(keys.Find(index, "a"), KeyIndex::kNone);
}

// Hashes that share their low bits (one home slot, long probe runs, equal
// tags) still resolve by key, and backward-shift deletion keeps every
// remaining key reachable; checked against a std::map after every step.
TEST(KeyIndexTest, RandomizedWithCollidingHashesMatchesMap) {
  for (const size_t hash_mask : {~size_t{0}, size_t{0xF}, size_t{0}}) {
    KeyIndex index;
    Keys keys;
    std::map<std::string, uint32_t> model;
    std::vector<uint32_t> free_ids;
    std::mt19937 rng(7);
    for (int step = 0; step < 4000; ++step) {
      const std::string key = "k" + std::to_string(rng() % 300);
      auto it = model.find(key);
      if (it == model.end()) {
        uint32_t id;
        if (free_ids.empty()) {
          id = static_cast<uint32_t>(keys.str.size());
          keys.str.emplace_back();
          keys.hash.emplace_back();
        } else {
          id = free_ids.back();
          free_ids.pop_back();
        }
        keys.str[id] = key;
        keys.hash[id] = StringHash{}(key) & hash_mask;
        index.Insert(keys.hash[id], id);
        model[key] = id;
      } else {
        index.Erase(keys.hash[it->second], it->second);
        keys.str[it->second].clear();
        free_ids.push_back(it->second);
        model.erase(it);
      }
      ASSERT_EQ(index.size(), model.size());
      if (step % 97 == 0) {
        for (const auto& [k, id] : model) {
          ASSERT_EQ(index.Find(keys.hash[id], [&](uint32_t i) { return keys.str[i] == k; }), id) << k;
        }
      }
    }
    for (int i = 0; i < 300; ++i) {
      const std::string k = "k" + std::to_string(i);
      auto it = model.find(k);
      const uint32_t got = index.Find(StringHash{}(k) & hash_mask, [&](uint32_t id) { return keys.str[id] == k; });
      EXPECT_EQ(got, it == model.end() ? KeyIndex::kNone : it->second) << k;
    }
  }
}

}  // namespace
}  // namespace ksched::scheduler::queue
