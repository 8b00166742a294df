#include "pkg/scheduler/plugins/podtopologyspread/node_slots.h"

namespace ksched::scheduler::plugins::podtopologyspread {

void NodeSlots::Resize(size_t slots) {
  nodes_.resize(slots, nullptr);
  values_.resize(slots * num_constraints_, kNoValue);
}

void NodeSlots::Rebuild() {
  // A power of two of at least twice the slots keeps probe sequences short.
  size_t size = 16;
  int bits = 4;
  while (size < 2 * nodes_.size()) {
    size *= 2;
    ++bits;
  }
  shift_ = 64 - bits;
  table_.assign(size, Entry{});
  mask_ = size - 1;
  for (size_t slot = 0; slot < nodes_.size(); ++slot) {
    const framework::NodeInfo* ni = nodes_[slot];
    if (ni == nullptr) continue;
    for (size_t i = Hash(ni) & mask_;; i = (i + 1) & mask_) {
      Entry& e = table_[i];
      if (e.node == ni) break;
      if (e.node == nullptr) {
        e = Entry{ni, static_cast<int32_t>(slot)};
        break;
      }
    }
  }
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
