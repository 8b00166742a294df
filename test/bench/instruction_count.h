// Marks the measured phase for callgrind: scheduler_perf run under
// `valgrind --tool=callgrind --instr-atstart=no` counts instructions only
// between StartInstructionCount and StopInstructionCount (every thread of
// the process), which is what `insn_count` divides by the pods scheduled.
//
// Outside valgrind, or when the build lacks valgrind/callgrind.h, both are
// no-ops costing a few instructions (callgrind's client requests are a
// magic instruction sequence that does nothing natively).
// Thread-safety: callable from any thread; callgrind's state is global.
#pragma once

namespace ksched::bench {

void StartInstructionCount();
void StopInstructionCount();
// Whether this process runs under valgrind (false without the header).
bool UnderValgrind();

}  // namespace ksched::bench
