// ArrayAllocator: the allocator of the queue's large flat arrays (heap
// slots, heap entries and positions, key index tables).
//
// Every block is aligned to a cache line (the heap lays groups of siblings
// and its entries on line boundaries). A block of 1 MiB or more is mapped
// on its own, rounded up to whole 2 MiB pages and aligned to them, and
// marked MADV_HUGEPAGE: at 100k pods the arrays the queue probes at random
// (entries, positions, index) span a few MB, and with 4 KB pages nearly
// every access to them also missed the TLB (a page walk, slow in a VM);
// with 2 MB pages their translations stay cached. Where transparent huge
// pages are disabled the advice is ignored and the block behaves like any
// other mapping. Cost: a large array occupies whole 2 MiB pages (at most
// twice its size, and only once it has reached 1 MiB).
//
// Thread-safety: stateless; allocate and deallocate may run on any thread.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace ksched::scheduler::queue {

namespace array_allocator_internal {

inline constexpr size_t kLine = 64;
inline constexpr size_t kHugePage = size_t{2} << 20;
// Blocks from this size on get their own huge-page mapping.
inline constexpr size_t kHugeThreshold = size_t{1} << 20;

inline size_t MappedBytes(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

// Maps `bytes` rounded up to whole huge pages, aligned to a huge page.
inline void* MapHuge(size_t bytes) {
  const size_t len = MappedBytes(bytes);
  // Over-map by one huge page, then trim both ends to the aligned range.
  void* raw = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + len + kHugePage;
  if (end > aligned + len) munmap(reinterpret_cast<void*>(aligned + len), end - (aligned + len));
  void* p = reinterpret_cast<void*>(aligned);
  (void)madvise(p, len, MADV_HUGEPAGE);  // advice only: fine to fail
  return p;
}

}  // namespace array_allocator_internal

template <class T>
struct ArrayAllocator {
  using value_type = T;
  ArrayAllocator() = default;
  template <class U>
  ArrayAllocator(const ArrayAllocator<U>&) {}  // NOLINT(runtime/explicit)
  template <class U>
  struct rebind {
    using other = ArrayAllocator<U>;
  };

  static constexpr size_t kAlign =
      alignof(T) > array_allocator_internal::kLine ? alignof(T) : array_allocator_internal::kLine;

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    const size_t bytes = n * sizeof(T);
    if (bytes >= array_allocator_internal::kHugeThreshold) {
      return static_cast<T*>(array_allocator_internal::MapHuge(bytes));
    }
    return static_cast<T*>(::operator new(bytes, std::align_val_t(kAlign)));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes >= array_allocator_internal::kHugeThreshold) {
      munmap(p, array_allocator_internal::MappedBytes(bytes));
    } else {
      ::operator delete(p, std::align_val_t(kAlign));
    }
  }
  template <class U>
  bool operator==(const ArrayAllocator<U>&) const {
    return true;
  }
};

}  // namespace ksched::scheduler::queue
