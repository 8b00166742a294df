#include "pkg/cel/regex.h"

#include <algorithm>
#include <string>

#include "pkg/cel/regex_syntax.h"
#include "pkg/cel/utf8.h"

namespace ksched::cel {
namespace {

using regex_syntax::Node;
using regex_syntax::NodePtr;

// Larger programs are refused, as Go refuses "expression too large".
constexpr size_t kMaxProgram = 50000;

class Compiler {
 public:
  explicit Compiler(std::vector<Regex::Inst>* prog) : prog_(prog) {}

  bool Emit(const Node& n) {
    if (prog_->size() > kMaxProgram) return false;
    using Op = Regex::Inst::Op;
    switch (n.kind) {
      case Node::Kind::kEmpty:
        return true;
      case Node::Kind::kChars: {
        Regex::Inst in;
        in.op = Op::kRanges;
        in.ranges = n.ranges;
        prog_->push_back(std::move(in));
        return true;
      }
      case Node::Kind::kAny: {
        Regex::Inst in;
        in.op = n.dot_nl ? Op::kAny : Op::kAnyNotNL;
        prog_->push_back(std::move(in));
        return true;
      }
      case Node::Kind::kAssert: {
        Regex::Inst in;
        in.op = Op::kAssert;
        in.assertion = n.assertion;
        prog_->push_back(std::move(in));
        return true;
      }
      case Node::Kind::kConcat:
        for (const auto& k : n.kids) {
          if (!Emit(*k)) return false;
        }
        return true;
      case Node::Kind::kAlt: {
        // split L1, next; L1: kid0; jmp end; next: split L2, ... ; last kid
        std::vector<size_t> jumps;
        for (size_t k = 0; k < n.kids.size(); ++k) {
          if (k + 1 < n.kids.size()) {
            size_t split = Add(Op::kSplit);
            (*prog_)[split].x = static_cast<int>(prog_->size());
            if (!Emit(*n.kids[k])) return false;
            jumps.push_back(Add(Op::kJmp));
            (*prog_)[split].y = static_cast<int>(prog_->size());
          } else if (!Emit(*n.kids[k])) {
            return false;
          }
        }
        for (size_t j : jumps) (*prog_)[j].x = static_cast<int>(prog_->size());
        return true;
      }
      case Node::Kind::kRepeat: {
        const Node& kid = *n.kids[0];
        for (int k = 0; k < n.min; ++k) {
          if (!Emit(kid)) return false;
        }
        // A Split's x is the preferred branch (find() reports the match
        // of the preferred threads): another repetition when greedy, what
        // follows when lazy.
        auto set = [&](size_t split, bool repeat, int target) {
          (repeat != n.lazy ? (*prog_)[split].x : (*prog_)[split].y) = target;
        };
        if (n.max < 0) {
          size_t split = Add(Op::kSplit);
          set(split, true, static_cast<int>(prog_->size()));
          if (!Emit(kid)) return false;
          size_t jmp = Add(Op::kJmp);
          (*prog_)[jmp].x = static_cast<int>(split);
          set(split, false, static_cast<int>(prog_->size()));
          return true;
        }
        std::vector<size_t> splits;
        for (int k = n.min; k < n.max; ++k) {
          size_t split = Add(Op::kSplit);
          set(split, true, static_cast<int>(prog_->size()));
          splits.push_back(split);
          if (!Emit(kid)) return false;
        }
        for (size_t s : splits) set(s, false, static_cast<int>(prog_->size()));
        return true;
      }
    }
    return true;
  }

 private:
  size_t Add(Regex::Inst::Op op) {
    Regex::Inst in;
    in.op = op;
    prog_->push_back(std::move(in));
    return prog_->size() - 1;
  }

  std::vector<Regex::Inst>* prog_;
};

// Whether the zero-width assertion `a` holds at rune position `pos` of `in`.
bool AssertionHolds(int a, const std::vector<uint32_t>& in, size_t pos) {
  const size_t n = in.size();
  uint32_t prev = pos > 0 ? in[pos - 1] : 0xFFFFFFFF;
  uint32_t next = pos < n ? in[pos] : 0xFFFFFFFF;
  bool pw = pos > 0 && regex_syntax::IsWordChar(prev), nw = pos < n && regex_syntax::IsWordChar(next);
  switch (a) {
    case regex_syntax::kBeginText: return pos == 0;
    case regex_syntax::kEndText: return pos == n;
    case regex_syntax::kBeginLine: return pos == 0 || prev == '\n';
    case regex_syntax::kEndLine: return pos == n || next == '\n';
    case regex_syntax::kWordBoundary: return pw != nw;
    default: return pw == nw;
  }
}

}  // namespace

util::StatusOr<Regex> Regex::Compile(std::string_view pattern) {
  util::StatusOr<NodePtr> tree = regex_syntax::Parse(pattern);
  if (!tree.ok()) return tree.status();
  Regex re;
  if (!Compiler(&re.prog_).Emit(**tree) || re.prog_.size() > kMaxProgram) {
    return util::InvalidArgument("error parsing regexp: expression too large: `" + std::string(pattern) + "`");
  }
  Inst match;
  match.op = Inst::Op::kMatch;
  re.prog_.push_back(std::move(match));
  return re;
}

bool Regex::Search(std::string_view text) const {
  uint64_t steps = 0;
  return *Search(text, UINT64_MAX, &steps);
}

std::optional<bool> Regex::Search(std::string_view text, uint64_t max_steps, uint64_t* steps) const {
  *steps = 0;
  std::vector<uint32_t> in = DecodeRunes(text);
  const size_t n = in.size();
  const size_t size = prog_.size();
  std::vector<int> clist, nlist, stack;
  std::vector<size_t> mark(size, SIZE_MAX);  // the step that last added each pc
  size_t step = 0;

  auto holds = [&](int a, size_t pos) { return AssertionHolds(a, in, pos); };
  // Adds pc and everything reachable without consuming input; true on Match.
  auto add = [&](std::vector<int>& list, int start, size_t pos) {
    stack.push_back(start);
    while (!stack.empty()) {
      int pc = stack.back();
      stack.pop_back();
      if (mark[static_cast<size_t>(pc)] == step) continue;
      mark[static_cast<size_t>(pc)] = step;
      const Inst& ins = prog_[static_cast<size_t>(pc)];
      switch (ins.op) {
        case Inst::Op::kMatch:
          stack.clear();
          return true;
        case Inst::Op::kJmp: stack.push_back(ins.x); break;
        case Inst::Op::kSplit:
          stack.push_back(ins.y);
          stack.push_back(ins.x);
          break;
        case Inst::Op::kAssert:
          if (holds(ins.assertion, pos)) stack.push_back(pc + 1);
          break;
        default: list.push_back(pc); break;
      }
    }
    return false;
  };
  for (size_t pos = 0;; ++pos) {
    // The unanchored search starts a thread at every position.
    if (add(clist, 0, pos)) return true;
    if (pos == n) return false;
    *steps += clist.size() + 1;
    if (*steps > max_steps) return std::nullopt;
    ++step;
    nlist.clear();
    uint32_t c = in[pos];
    for (int pc : clist) {
      const Inst& ins = prog_[static_cast<size_t>(pc)];
      bool ok = false;
      if (ins.op == Inst::Op::kAny) {
        ok = true;
      } else if (ins.op == Inst::Op::kAnyNotNL) {
        ok = c != '\n';
      } else if (ins.op == Inst::Op::kRanges) {
        auto it = std::upper_bound(ins.ranges.begin(), ins.ranges.end(), std::make_pair(c, UINT32_MAX));
        ok = it != ins.ranges.begin() && std::prev(it)->second >= c;
      }
      if (ok && add(nlist, pc + 1, pos + 1)) return true;
    }
    std::swap(clist, nlist);
    (void)size;
  }
}

// A Pike VM: threads carry the position their match began at and are kept
// in priority order, so the first thread to reach Match at the earliest
// start is Go's leftmost-first match; lower-priority threads are dropped
// then, and no new ones start.
std::optional<std::pair<size_t, size_t>> Regex::Find(const std::vector<uint32_t>& in, size_t from,
                                                     uint64_t max_steps, uint64_t* steps) const {
  const size_t n = in.size();
  struct Thread {
    int pc;
    size_t start;
  };
  std::vector<Thread> clist, nlist;
  std::vector<int> stack;
  std::vector<size_t> mark(prog_.size(), SIZE_MAX);
  size_t step = 0;
  std::pair<size_t, size_t> found{SIZE_MAX, SIZE_MAX};
  auto holds = [&](int a, size_t pos) { return AssertionHolds(a, in, pos); };
  // Adds the threads reachable from pc without consuming input, in
  // priority order (a Split's first target first).
  auto add = [&](std::vector<Thread>& list, int start_pc, size_t start, size_t pos) {
    stack.push_back(start_pc);
    while (!stack.empty()) {
      int pc = stack.back();
      stack.pop_back();
      if (mark[static_cast<size_t>(pc)] == step) continue;
      mark[static_cast<size_t>(pc)] = step;
      const Inst& ins = prog_[static_cast<size_t>(pc)];
      switch (ins.op) {
        case Inst::Op::kJmp: stack.push_back(ins.x); break;
        case Inst::Op::kSplit:
          stack.push_back(ins.y);
          stack.push_back(ins.x);
          break;
        case Inst::Op::kAssert:
          if (holds(ins.assertion, pos)) stack.push_back(pc + 1);
          break;
        default: list.push_back(Thread{pc, start}); break;
      }
    }
  };
  for (size_t pos = from;; ++pos) {
    if (found.first == SIZE_MAX) add(clist, 0, pos, pos);
    *steps += clist.size() + 1;
    if (*steps > max_steps) return std::nullopt;
    ++step;
    nlist.clear();
    for (const Thread& t : clist) {
      const Inst& ins = prog_[static_cast<size_t>(t.pc)];
      if (ins.op == Inst::Op::kMatch) {
        found = {t.start, pos};
        break;  // the threads after this one have lower priority
      }
      if (pos == n) continue;
      uint32_t c = in[pos];
      bool ok = false;
      if (ins.op == Inst::Op::kAny) {
        ok = true;
      } else if (ins.op == Inst::Op::kAnyNotNL) {
        ok = c != '\n';
      } else if (ins.op == Inst::Op::kRanges) {
        auto it = std::upper_bound(ins.ranges.begin(), ins.ranges.end(), std::make_pair(c, UINT32_MAX));
        ok = it != ins.ranges.begin() && std::prev(it)->second >= c;
      }
      if (ok) add(nlist, t.pc + 1, t.start, pos + 1);
    }
    std::swap(clist, nlist);
    if (pos >= n || (found.first != SIZE_MAX && clist.empty())) break;
  }
  return found;
}

}  // namespace ksched::cel
