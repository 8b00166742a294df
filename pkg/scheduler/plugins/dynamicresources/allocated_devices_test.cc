#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "pkg/api/quantity.h"

namespace ksched::scheduler::dra {
namespace {

using api::Quantity;

std::shared_ptr<const api::ResourceClaim> Allocated(std::vector<api::DeviceRequestAllocationResult> results) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->status.allocation.emplace();
  c->status.allocation->devices.results = std::move(results);
  return c;
}

TEST(AllocatedDevicesTest, AdminAccessResultsDoNotTakeTheirDevice) {
  auto unallocated = std::make_shared<api::ResourceClaim>();
  auto got = AllocatedDevices({Allocated({{"gpu", "d", "p", "a", std::nullopt}, {"gpu", "d", "p", "b", false}}),
                               Allocated({{"mon", "d", "p", "c", true}}), unallocated,
                               Allocated({{"x", "d", "q", "a", std::nullopt}})});
  EXPECT_EQ(got, (std::set<DeviceId>{{"d", "p", "a"}, {"d", "p", "b"}, {"d", "q", "a"}}));
}

// Two shares of "gpu" consuming 1Gi each and "nic" taken whole.
api::AllocationResult SharesAndAWholeDevice() {
  api::AllocationResult allocation;
  api::DeviceRequestAllocationResult shared{"r", "d", "p", "gpu", std::nullopt, {}};
  shared.share_id = "s1";
  shared.consumed_capacity["memory"] = Quantity::MustParse("1Gi");
  allocation.devices.results = {shared, shared, api::DeviceRequestAllocationResult{"r", "d", "p", "nic", std::nullopt, {}}};
  allocation.devices.results[1].share_id = "s2";
  return allocation;
}

api::AllocationResult Whole(const std::string& device) {
  api::AllocationResult allocation;
  allocation.devices.results = {api::DeviceRequestAllocationResult{"r", "d", "p", device, std::nullopt, {}}};
  return allocation;
}

TEST(AllocatedCountsTest, SharesAndTheirCapacity) {
  const DeviceId gpu{"d", "p", "gpu"};
  const DeviceId nic{"d", "p", "nic"};
  AllocatedCounts counts;
  counts.Add(SharesAndAWholeDevice(), true);
  AllocatedState state = counts.State();
  EXPECT_TRUE(state.TakenWhole(nic));
  EXPECT_FALSE(state.HasShares(nic));
  EXPECT_FALSE(state.TakenWhole(gpu));
  EXPECT_TRUE(state.HasShares(gpu));
  ASSERT_NE(state.Consumed(gpu), nullptr);
  EXPECT_EQ(state.Consumed(gpu)->at("memory").ToString(), "2Gi");
  EXPECT_EQ(state.Consumed(nic), nullptr);
  // Gate off: every result takes its device.
  AllocatedCounts off;
  off.Add(SharesAndAWholeDevice(), false);
  EXPECT_TRUE(off.State().TakenWhole(gpu));
  EXPECT_FALSE(off.State().HasShares(gpu));
  EXPECT_EQ(off.State().Consumed(gpu), nullptr);
}

TEST(AllocatedCountsTest, RemoveUndoesAddAndViewsStayAsTheyWere) {
  const DeviceId gpu{"d", "p", "gpu"};
  AllocatedCounts counts;
  counts.Add(SharesAndAWholeDevice(), true);
  counts.Add(Whole("gpu"), true);
  AllocatedState both = counts.State();
  counts.Remove(Whole("gpu"), true);
  AllocatedState shares = counts.State();
  counts.Remove(SharesAndAWholeDevice(), true);
  AllocatedState none = counts.State();

  EXPECT_TRUE(both.TakenWhole(gpu));
  EXPECT_TRUE(both.HasShares(gpu));
  EXPECT_FALSE(shares.TakenWhole(gpu));
  EXPECT_EQ(shares.Consumed(gpu)->at("memory").ToString(), "2Gi");
  EXPECT_FALSE(none.Holds(gpu));
  EXPECT_FALSE(none.Holds({"d", "p", "nic"}));
  EXPECT_EQ(none.Consumed(gpu), nullptr);
}

// One step of a walk over 400 devices: the step's device is taken if it
// was free and freed if it was taken, in `counts` and in `held` alike.
void ToggleDeviceOfStep(int step, AllocatedCounts& counts, std::set<int>& held) {
  const int device = (step * 7919) % 400;
  if (held.erase(device) != 0) {
    counts.Remove(Whole("dev-" + std::to_string(device)), true);
  } else {
    held.insert(device);
    counts.Add(Whole("dev-" + std::to_string(device)), true);
  }
}

// Whether `state` holds exactly the devices of `expected`.
void ExpectHeld(const AllocatedState& state, const std::set<int>& expected) {
  for (int device = 0; device < 400; ++device) {
    ASSERT_EQ(state.TakenWhole({"d", "p", "dev-" + std::to_string(device)}), expected.count(device) != 0)
        << "device " << device;
  }
}

// Devices come and go between views taken at irregular steps (so the
// table and its shards are copied under some views and not others); every
// view answers as a tally from scratch would.
TEST(AllocatedCountsTest, ViewsAcrossCopiesMatchATallyFromScratch) {
  AllocatedCounts counts;
  std::set<int> held;
  std::vector<std::pair<std::set<int>, AllocatedState>> views;
  for (int step = 0; step < 3000; ++step) {
    ToggleDeviceOfStep(step, counts, held);
    if (step % 97 == 0) views.emplace_back(held, counts.State());
  }
  views.emplace_back(held, counts.State());
  for (const auto& [expected, state] : views) ExpectHeld(state, expected);
}

// As above, with views living from none to a few dozen steps, so that the
// tally moves between writing in place (no view alive) and copying. Each
// view is checked as it is dropped.
TEST(AllocatedCountsTest, ViewsOfVaryingLifetimesMatchATallyFromScratch) {
  struct View {
    int dies_at;
    std::set<int> expected;
    AllocatedState state;
  };
  AllocatedCounts counts;
  std::set<int> held;
  std::vector<View> alive;
  for (int step = 0; step < 3000; ++step) {
    ToggleDeviceOfStep(step, counts, held);
    if (step % 13 == 0) alive.push_back(View{step + (step % 5) * 10, held, counts.State()});
    std::erase_if(alive, [&](const View& v) {
      if (v.dies_at > step) return false;
      SCOPED_TRACE("the view dropped at step " + std::to_string(step));
      ExpectHeld(v.state, v.expected);
      return true;
    });
  }
  for (const View& v : alive) ExpectHeld(v.state, v.expected);
  EXPECT_GT(counts.TableCopies(), 0u) << "some changes were made under live views";
  EXPECT_LT(counts.TableCopies(), 3000u) << "others were not";
}

// The table is copied only for a change made while a view is alive.
TEST(AllocatedCountsTest, ChangesCopyOnlyWhileAViewIsAlive) {
  const DeviceId a{"d", "p", "a"};
  AllocatedCounts counts;
  counts.Add(Whole("a"), true);
  counts.State();  // dropped at once
  counts.Add(Whole("b"), true);
  EXPECT_EQ(counts.TableCopies(), 0u);

  AllocatedState alive = counts.State();
  AllocatedState copy = alive;  // copies of a view count as one
  counts.Remove(Whole("a"), true);
  EXPECT_EQ(counts.TableCopies(), 1u);
  EXPECT_TRUE(alive.TakenWhole(a));
  EXPECT_FALSE(counts.State().TakenWhole(a));

  alive = AllocatedState();
  copy = AllocatedState();
  counts.Add(Whole("a"), true);
  EXPECT_EQ(counts.TableCopies(), 1u) << "no view was alive";
  EXPECT_TRUE(counts.State().TakenWhole(a));
}

// A view read and dropped on another thread while the tally changes: only
// the lease orders the reader's reads before writes in place (the flag is
// relaxed, and the thread is joined after the change). Under the tsan build
// this checks that ordering.
TEST(AllocatedCountsTest, ViewsDroppedOnAnotherThreadLetTheTallyWriteInPlace) {
  AllocatedCounts counts;
  for (int round = 0; round < 200; ++round) {
    const std::string device = "dev-" + std::to_string(round % 10);
    AllocatedState view = counts.State();
    const bool was_held = view.TakenWhole({"d", "p", device});
    std::atomic<bool> dropped{false};
    std::thread reader([&, view = std::move(view)]() mutable {
      EXPECT_EQ(view.TakenWhole({"d", "p", device}), was_held);
      view = AllocatedState();
      dropped.store(true, std::memory_order_relaxed);
    });
    while (!dropped.load(std::memory_order_relaxed)) std::this_thread::yield();
    if (was_held) {
      counts.Remove(Whole(device), true);
    } else {
      counts.Add(Whole(device), true);
    }
    reader.join();
    EXPECT_EQ(counts.State().TakenWhole({"d", "p", device}), !was_held);
  }
}

api::AllocationResult WholeIn(const std::string& pool, const std::string& device) {
  api::AllocationResult allocation = Whole(device);
  allocation.devices.results[0].pool = pool;
  return allocation;
}

// A pool's mark continues while its holds only grow; a removal in the
// pool (not in another) starts a new one.
TEST(AllocatedCountsTest, MarksContinueUntilAHoldOfThePoolIsRemoved) {
  AllocatedCounts counts;
  counts.Add(WholeIn("p", "a"), true);
  const PoolMark first = counts.State().Mark("d", "p");
  counts.Add(WholeIn("p", "b"), true);
  counts.Add(WholeIn("q", "a"), true);
  counts.Remove(WholeIn("q", "a"), true);
  const PoolMark grown = counts.State().Mark("d", "p");
  EXPECT_TRUE(grown.Continues(first));
  EXPECT_FALSE(first.Continues(grown)) << "an older view lacks the later holds";
  EXPECT_FALSE(counts.State().Mark("d", "q").Continues(PoolMark{first.tally, 0, 0}));

  counts.Remove(WholeIn("p", "a"), true);
  const PoolMark shrunk = counts.State().Mark("d", "p");
  EXPECT_FALSE(shrunk.Continues(first));
  EXPECT_FALSE(shrunk.Continues(grown));
  counts.Add(WholeIn("p", "a"), true);
  EXPECT_TRUE(counts.State().Mark("d", "p").Continues(shrunk));
  EXPECT_TRUE(counts.State().TakenWhole({"d", "p", "a"}));
  EXPECT_FALSE(counts.State().Holds({"d", "p", ""})) << "the pool's stamp holds no device";

  AllocatedCounts other;
  other.Add(WholeIn("p", "a"), true);
  EXPECT_FALSE(other.State().Mark("d", "p").Continues(first)) << "another tally";
  const AllocatedState built(DeviceHolds{{DeviceId{"d", "p", "a"}, DeviceHold{1, 0, {}, 0}}});
  EXPECT_EQ(built.Mark("d", "p").tally, 0u);
  EXPECT_FALSE(built.Mark("d", "p").Continues(built.Mark("d", "p")));
}

TEST(HeldPrefixTest, KnownWhileTheMarkContinues) {
  AllocatedCounts counts;
  counts.Add(WholeIn("p", "a"), true);
  const PoolMark first = counts.State().Mark("d", "p");
  HeldPrefix prefix;
  EXPECT_EQ(prefix.Get(first), 0u);
  prefix.Set(first, 3);
  EXPECT_EQ(prefix.Get(first), 3u);
  counts.Add(WholeIn("p", "b"), true);
  const PoolMark grown = counts.State().Mark("d", "p");
  EXPECT_EQ(prefix.Get(grown), 3u);
  prefix.Set(grown, 2);
  EXPECT_EQ(prefix.Get(first), 3u) << "a shorter prefix under a later mark adds nothing";
  prefix.Set(grown, 5);
  EXPECT_EQ(prefix.Get(grown), 5u);
  EXPECT_EQ(prefix.Get(first), 0u) << "known for the later view only";
  counts.Remove(WholeIn("p", "b"), true);
  EXPECT_EQ(prefix.Get(counts.State().Mark("d", "p")), 0u);
  EXPECT_EQ(HeldPrefix(prefix).Get(grown), 0u) << "a copy starts knowing nothing";
  prefix.Set(PoolMark{}, 7);
  EXPECT_EQ(prefix.Get(grown), 5u) << "a view of no tally teaches nothing";
}

TEST(AllocatedStateTest, EmptyHoldsHoldNothing) {
  AllocatedState state(DeviceHolds{{{"d", "p", "a"}, {}}, {{"d", "p", "b"}, {1, 0, {}}}});
  EXPECT_FALSE(state.Holds({"d", "p", "a"}));
  EXPECT_TRUE(state.Holds({"d", "p", "b"}));
  EXPECT_FALSE(AllocatedState().Holds({"d", "p", "b"}));
}

}  // namespace
}  // namespace ksched::scheduler::dra
