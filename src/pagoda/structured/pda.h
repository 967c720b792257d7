// Runs a Grammar as a pushdown automaton over bytes. A state is the set of
// parse stacks that the input so far allows, each stopped before a byte set;
// stacks are persistent and hash-consed (a frame is interned with its
// parent), so equal stacks are one frame id and a state is a sorted list of
// ids. Calls in tail position replace their frame, so right recursion (the
// lowering of every repeat) runs in constant stack depth. The grammar has
// no left recursion (left_recursion.h), so closures terminate.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pagoda/structured/byte_set.h"
#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

struct PdaState {
  std::vector<int32_t> tops;  // frame ids, sorted, each before a byte set
  bool accepting = false;     // the input so far is a whole sentence
  bool overflow = false;      // more stacks than the limit: treated as dead

  bool Dead() const { return tops.empty() && !accepting; }
  // No byte can follow.
  bool Finished() const { return tops.empty(); }
};

class Pda {
 public:
  // A state with more stacks than `max_stacks` overflows: the grammar is too
  // ambiguous to follow.
  explicit Pda(std::shared_ptr<const Grammar> grammar, size_t max_stacks = 4096);

  const Grammar& grammar() const { return *grammar_; }

  void Initial(PdaState* out);
  // The state after `byte` from `from` (Dead() if the byte is not allowed).
  void Advance(const PdaState& from, uint8_t byte, PdaState* out);
  // The bytes that some stack of `state` accepts next.
  ByteSet NextBytes(const PdaState& state) const;

  // Frames are never freed one by one (mask walks keep the states they
  // meet for the next walk); Compact drops every frame that no stack of
  // `live` uses and renumbers the rest, rewriting `live` in place. Ids keep
  // their order, so sorted tops stay sorted; other states become invalid.
  size_t num_frames() const { return frames_.size(); }
  void Compact(std::span<PdaState> live);

  // A key that equal states of any Pda of the same grammar share: each
  // stack spelt out from top to bottom.
  std::string Key(const PdaState& state) const;

 private:
  struct Frame {
    int32_t rule;
    int32_t alternative;
    int32_t dot;     // the next symbol's index in the alternative
    int32_t parent;  // the frame to resume when this one completes; -1: none
  };

  static uint64_t PackPosition(const Frame& frame) {
    return (uint64_t(uint32_t(frame.rule)) << 40) ^ (uint64_t(uint32_t(frame.alternative)) << 20) ^
           uint64_t(uint32_t(frame.dot));
  }
  static uint64_t Hash(uint64_t position, int32_t parent) {
    return (position * 0x9E3779B97F4A7C15ull) ^ (uint64_t(uint32_t(parent)) * 0xC2B2AE3D27D4EB4Full);
  }
  // A slot of the frame index: a frame's key and id (id -1: empty).
  struct Slot {
    uint64_t position;
    int32_t parent;
    int32_t id;
  };

  int32_t Intern(const Frame& frame);
  // An index of `slots` slots (a power of two) holding every frame.
  void RebuildIndex(size_t slots);
  // Adds to `out` every stack that `frame` reaches without input.
  void Close(int32_t frame, PdaState* out);
  Symbol NextSymbol(const Frame& frame) const {
    return grammar_->rules[frame.rule].alternatives[frame.alternative][frame.dot];
  }
  void Finish(PdaState* out);

  std::shared_ptr<const Grammar> grammar_;
  size_t max_stacks_;
  std::vector<Frame> frames_;
  // Frame ids by key: open addressing with linear probing, at most half
  // full; a node-based map's allocations would dominate the mask walks.
  std::vector<Slot> index_;
  // Closure scratch: frames seen this closure (by epoch), and the worklist.
  std::vector<uint32_t> seen_;
  uint32_t epoch_ = 0;
  std::vector<int32_t> work_;
};

}  // namespace pagoda::structured
