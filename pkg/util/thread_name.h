// Names the calling thread, so `top -H`, `ps -L`, perf and gdb show what
// each of the daemon's threads does. Linux keeps at most 15 bytes of a name;
// longer names are cut there. Cheap (one prctl); call it first thing in a
// thread's body.

#pragma once

#include <pthread.h>

#include <algorithm>
#include <string_view>

namespace ksched::util {

inline void NameThisThread(std::string_view name) {
  char buf[16];
  size_t n = std::min(name.size(), sizeof(buf) - 1);
  name.copy(buf, n);
  buf[n] = '\0';
  pthread_setname_np(pthread_self(), buf);
}

}  // namespace ksched::util
