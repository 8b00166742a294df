#include "pkg/cel/regex.h"

#include <algorithm>
#include <map>
#include <memory>
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
        // Each repetition of the node shares one copy of its ranges: a
        // Unicode class can hold hundreds, and x{1000} repeats it.
        auto& shared = shared_[&n];
        if (!shared) shared = std::make_shared<const Regex::Ranges>(n.ranges);
        in.ranges = shared;
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
  std::map<const Node*, std::shared_ptr<const Regex::Ranges>> shared_;
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

// The epsilon closure both VMs take: from a pc, follows Jmp, Split (first
// target first, so threads come out in priority order) and assertions that
// hold at `pos`, and hands each other instruction's pc to `emit` once per
// step. `emit` returns true to stop the walk (Search stops at Match).
class Closure {
 public:
  Closure(const std::vector<Regex::Inst>& prog, const std::vector<uint32_t>& in)
      : prog_(prog), in_(in), mark_(prog.size(), SIZE_MAX) {}

  // Starts a new step: every pc may be reached once more.
  void NextStep() { ++step_; }

  template <typename Emit>
  bool Follow(int start, size_t pos, Emit&& emit) {
    using Op = Regex::Inst::Op;
    stack_.push_back(start);
    while (!stack_.empty()) {
      int pc = stack_.back();
      stack_.pop_back();
      if (mark_[static_cast<size_t>(pc)] == step_) continue;
      mark_[static_cast<size_t>(pc)] = step_;
      const Regex::Inst& ins = prog_[static_cast<size_t>(pc)];
      switch (ins.op) {
        case Op::kJmp: stack_.push_back(ins.x); break;
        case Op::kSplit:
          stack_.push_back(ins.y);
          stack_.push_back(ins.x);
          break;
        case Op::kAssert:
          if (AssertionHolds(ins.assertion, in_, pos)) stack_.push_back(pc + 1);
          break;
        default:
          if (emit(pc)) {
            stack_.clear();
            return true;
          }
          break;
      }
    }
    return false;
  }

 private:
  const std::vector<Regex::Inst>& prog_;
  const std::vector<uint32_t>& in_;
  std::vector<size_t> mark_;  // the step that last reached each pc
  std::vector<int> stack_;
  size_t step_ = 0;
};

// Whether a consuming instruction accepts code point c.
bool Consumes(const Regex::Inst& ins, uint32_t c) {
  switch (ins.op) {
    case Regex::Inst::Op::kAny: return true;
    case Regex::Inst::Op::kAnyNotNL: return c != '\n';
    case Regex::Inst::Op::kRanges: {
      auto it = std::upper_bound(ins.ranges->begin(), ins.ranges->end(), std::make_pair(c, UINT32_MAX));
      return it != ins.ranges->begin() && std::prev(it)->second >= c;
    }
    default: return false;
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
  const std::vector<uint32_t> in = DecodeRunes(text);
  const size_t n = in.size();
  std::vector<int> clist, nlist;
  Closure closure(prog_, in);
  // A thread at Match ends the search; any other is listed.
  auto into = [this](std::vector<int>& list) {
    return [this, &list](int pc) {
      if (prog_[static_cast<size_t>(pc)].op == Inst::Op::kMatch) return true;
      list.push_back(pc);
      return false;
    };
  };
  for (size_t pos = 0;; ++pos) {
    // The unanchored search starts a thread at every position.
    if (closure.Follow(0, pos, into(clist))) return true;
    if (pos == n) return false;
    *steps += clist.size() + 1;
    if (*steps > max_steps) return std::nullopt;
    closure.NextStep();
    nlist.clear();
    for (int pc : clist) {
      if (Consumes(prog_[static_cast<size_t>(pc)], in[pos]) && closure.Follow(pc + 1, pos + 1, into(nlist))) {
        return true;
      }
    }
    std::swap(clist, nlist);
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
  Closure closure(prog_, in);
  std::pair<size_t, size_t> found{SIZE_MAX, SIZE_MAX};
  auto into = [](std::vector<Thread>& list, size_t start) {
    return [&list, start](int pc) {
      list.push_back(Thread{pc, start});
      return false;
    };
  };
  for (size_t pos = from;; ++pos) {
    if (found.first == SIZE_MAX) closure.Follow(0, pos, into(clist, pos));
    *steps += clist.size() + 1;
    if (*steps > max_steps) return std::nullopt;
    closure.NextStep();
    nlist.clear();
    for (const Thread& t : clist) {
      const Inst& ins = prog_[static_cast<size_t>(t.pc)];
      if (ins.op == Inst::Op::kMatch) {
        found = {t.start, pos};
        break;  // the threads after this one have lower priority
      }
      if (pos < n && Consumes(ins, in[pos])) closure.Follow(t.pc + 1, pos + 1, into(nlist, t.start));
    }
    std::swap(clist, nlist);
    if (pos >= n || (found.first != SIZE_MAX && clist.empty())) break;
  }
  return found;
}

}  // namespace ksched::cel
