// Randomized simulation of the bookkeeping stack with no model: random
// arrivals, shared prefixes, n > 1, beam searches, aborts and a pool small
// enough to force preemptions (and suspensions of parked beams). A fake
// runner keeps a token per KV slot, performs the plan's block copies and
// writes, and its fake model reads each sequence's context back through the
// block tables (every group's, for hybrid layouts with sliding windows: the
// part each group's layers can see), so any wrong sharing, missed copy, bad
// prefix hit or block released too early changes the tokens. Every request must end with exactly the
// tokens an unlimited pool gives: the fake model makes them a pure function
// of the context, computed here directly as the oracle.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <random>
#include <set>

#include "pagoda/scheduler/scheduler.h"

namespace pagoda {
namespace {

constexpr int32_t kBlockSize = 4;
constexpr int32_t kEos = 2;
constexpr int32_t kVocab = 64;

// The fake model's sample `k` after `context`: a mix of every token, EOS
// about one time in 25.
int32_t FakeToken(std::span<const int32_t> context, int32_t k) {
  uint64_t h = 0x9e3779b97f4a7c15ull * (k + 1);
  for (int32_t t : context) {
    h ^= static_cast<uint64_t>(t) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return h % 25 == 0 ? kEos : static_cast<int32_t>(3 + h % (kVocab - 3));
}

struct Expected {
  std::vector<int32_t> tokens;
  RequestStatus status;
  StopReason stop_reason;
};

// What sequence k of a request gets with unlimited KV cache.
Expected Oracle(const Request& r, int32_t k, int64_t max_model_len) {
  const SamplingParams& p = r.params();
  std::vector<int32_t> context = r.prompt_token_ids();
  Expected e;
  int32_t sample = k;  // the first token is sample k of the shared prompt's logits
  while (true) {
    const int32_t t = FakeToken(context, sample);
    sample = 0;
    context.push_back(t);
    e.tokens.push_back(t);
    const int64_t n = static_cast<int64_t>(e.tokens.size());
    if (n >= p.min_tokens) {
      if (!p.ignore_eos && t == kEos) {
        e.status = RequestStatus::kFinishedStopped;
        return e;
      }
      if (std::find(p.stop_token_ids.begin(), p.stop_token_ids.end(), t) != p.stop_token_ids.end()) {
        e.status = RequestStatus::kFinishedStopped;
        e.stop_reason = t;
        return e;
      }
    }
    if (static_cast<int64_t>(context.size()) >= max_model_len || (p.max_tokens && n >= *p.max_tokens)) {
      e.status = RequestStatus::kFinishedLength;
      return e;
    }
  }
}

// Beam search's round end, faked: from the live beams' tokens (a pure
// function of them, like the engine's choice from their logits) pick up to
// `width` children, or none once the beams have `max_tokens` outputs.
std::vector<ParkedSuccessor> FakeBeamChildren(const std::vector<std::vector<int32_t>>& beams, int32_t width,
                                        int64_t num_output_tokens, int32_t max_tokens) {
  std::vector<ParkedSuccessor> children;
  if (num_output_tokens >= max_tokens) return children;
  const int32_t n = static_cast<int32_t>(beams.size());
  const int32_t num_children = 1 + FakeToken(beams[0], 99) % width;
  for (int32_t i = 0; i < num_children; ++i) {
    const int32_t parent = FakeToken(beams[i % n], 7 + i) % n;  // often one parent twice: a fork
    children.push_back({parent, FakeToken(beams[parent], i)});
  }
  return children;
}

// What a beam request's last beams are with unlimited KV cache.
std::vector<std::vector<int32_t>> BeamOracle(const Request& r) {
  std::vector<std::vector<int32_t>> beams = {r.prompt_token_ids()};
  for (int64_t out = 0;; ++out) {
    const std::vector<ParkedSuccessor> children =
        FakeBeamChildren(beams, r.params().beam_width, out, *r.params().max_tokens);
    if (children.empty()) return beams;
    std::vector<std::vector<int32_t>> next;
    for (const ParkedSuccessor& c : children) {
      next.push_back(beams[c.parent]);
      next.back().push_back(c.token);
    }
    beams = std::move(next);
  }
}

struct SimConfig {
  uint32_t seed;
  SchedulingPolicy policy;
  bool prefix_caching;
  // Chunked prefill's fairness knobs (0, 1, 1: vLLM's defaults, no limits).
  int32_t long_prefill_token_threshold = 0;
  int32_t max_num_partial_prefills = 1;
  int32_t max_long_partial_prefills = 1;
  // The KV cache groups' sliding windows (0: full attention); empty: one full group.
  std::vector<int64_t> windows = {};
  int32_t num_blocks = 24;
};

void PrintTo(const SimConfig& c, std::ostream* os) {
  *os << "seed " << c.seed << (c.policy == SchedulingPolicy::kFcfs ? " fcfs" : " priority")
      << (c.prefix_caching ? "" : " no-prefix-caching") << " threshold " << c.long_prefill_token_threshold
      << " partial prefills " << c.max_num_partial_prefills << "/" << c.max_long_partial_prefills << " windows";
  for (int64_t w : c.windows) *os << " " << w;
  *os << " blocks " << c.num_blocks;
}

struct SimCounts {
  int64_t finished = 0, aborted = 0, refused = 0, forked = 0, copies = 0, cached_tokens = 0;
  int64_t beam_rounds = 0, beams_finished = 0, suspended_beams = 0;
  int64_t capped_chunks = 0;        // prefill chunks cut at the threshold
  int64_t shared_prefill_steps = 0;  // steps with two or more prompt chunks
  int64_t released_entries = 0;      // windowed table entries whose block went back to the pool, seen in plans
};

class Simulation {
 public:
  explicit Simulation(const SimConfig& c)
      : rng_(c.seed), threshold_(c.long_prefill_token_threshold), num_blocks_(c.num_blocks) {
    for (int64_t w : c.windows) groups_.push_back({.sliding_window = w});
    if (groups_.empty()) groups_.push_back({});
    SchedulerConfig sc;
    sc.max_num_batched_tokens = 32;
    sc.max_num_seqs = 8;
    sc.max_model_len = 64;
    sc.policy = c.policy;
    sc.long_prefill_token_threshold = c.long_prefill_token_threshold;
    sc.max_num_partial_prefills = c.max_num_partial_prefills;
    sc.max_long_partial_prefills = c.max_long_partial_prefills;
    sc.eos_token_id = kEos;
    sc.kv = {.num_blocks = num_blocks_,
             .block_size = kBlockSize,
             .enable_prefix_caching = c.prefix_caching,
             .groups = groups_};
    sc.clock = [this] { return static_cast<double>(step_); };
    scheduler_ = std::make_unique<Scheduler>(std::move(sc));
    kv_.assign(static_cast<size_t>(num_blocks_) * kBlockSize, -1);
    for (int i = 0; i < 4; ++i) {
      std::vector<int32_t> prefix(Uniform(0, 21));
      for (int32_t& t : prefix) t = Uniform(3, kVocab - 1);
      prefixes_.push_back(prefix);
    }
  }

  void Run(int arrival_steps, int drain_steps) {
    for (step_ = 0; step_ < arrival_steps + drain_steps; ++step_) {
      if (step_ >= arrival_steps && !scheduler_->has_unfinished_requests()) break;
      if (step_ < arrival_steps) Arrivals();
      if (Chance(0.03)) AbortSomething();
      Step();
      const Status s = scheduler_->CheckInvariants();
      ASSERT_TRUE(s.ok()) << "step " << step_ << ": " << s.ToString();
    }
    ASSERT_FALSE(scheduler_->has_unfinished_requests()) << "requests still unfinished after draining";
    const KvCacheManager& kv = scheduler_->kv_cache();
    EXPECT_EQ(kv.pool().num_free(), kv.num_blocks());
    EXPECT_TRUE(kv.CheckInvariants().ok());
  }

  const SimCounts& counts() const { return counts_; }
  SchedulerStats stats() const { return scheduler_->stats(); }

 private:
  int32_t Uniform(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  void Arrivals() {
    if (!Chance(0.3)) return;
    std::vector<int32_t> prompt = prefixes_[Uniform(0, 3)];
    const int32_t suffix = Uniform(prompt.empty() ? 1 : 0, 30);
    for (int i = 0; i < suffix; ++i) prompt.push_back(Uniform(3, kVocab - 1));
    if (Chance(0.02)) prompt.resize(Uniform(64, 70), 3);  // at or over max_model_len: refused
    SamplingParams p;
    if (Chance(0.1)) {
      p.use_beam_search = true;
      p.beam_width = Uniform(2, 3);
      p.temperature = 0.0f;
      p.max_tokens = Uniform(1, 12);
    } else {
      p.n = Chance(0.25) ? Uniform(2, 3) : 1;
      p.max_tokens = Chance(0.1) ? std::nullopt : std::optional<int32_t>(Uniform(1, 24));
      p.min_tokens = Chance(0.2) ? Uniform(1, 3) : 0;
      if (p.max_tokens) p.min_tokens = std::min(p.min_tokens, *p.max_tokens);
      p.ignore_eos = Chance(0.2);
      if (Chance(0.2)) p.stop_token_ids = {Uniform(3, kVocab - 1)};
    }
    CacheKeys keys;
    if (Chance(0.1)) keys.cache_salt = "tenant";
    const std::string id = "r" + std::to_string(next_id_++);
    const int64_t longest = p.max_tokens ? std::min<int64_t>(64, prompt.size() + *p.max_tokens) : 64;
    const bool refusable = static_cast<int64_t>(prompt.size()) >= 64 ||
                           MaxBlocksPerSequence(groups_, kBlockSize, longest, 32) > num_blocks_;
    auto request = std::make_unique<Request>(id, std::move(prompt), p, static_cast<double>(step_), Uniform(0, 3), keys);
    request->set_parks(p.use_beam_search);  // as the engine marks a beam request
    const Status s = scheduler_->AddRequest(std::move(request));
    ASSERT_EQ(s.ok(), !refusable) << s.ToString();
    if (s.ok()) {
      live_.insert(id);
    } else {
      ++counts_.refused;
    }
  }

  void AbortSomething() {
    if (live_.empty()) return;
    auto it = live_.begin();
    std::advance(it, Uniform(0, static_cast<int32_t>(live_.size()) - 1));
    std::unique_ptr<Request> r = scheduler_->AbortRequest(*it);
    ASSERT_NE(r, nullptr);
    CheckAborted(*r);
    live_.erase(it);
  }

  // An aborted request's outputs so far are a prefix of what it would get.
  void CheckAborted(const Request& r) {
    ++counts_.aborted;
    beam_ready_.erase(r.id());
    if (r.params().use_beam_search) return;  // its beams are checked round by round
    for (int32_t k = 0; k < r.num_sequences(); ++k) {
      const Sequence& seq = r.sequence(k);
      const Expected e = Oracle(r, k, 64);
      ASSERT_LE(seq.num_output_tokens(), static_cast<int64_t>(e.tokens.size()));
      EXPECT_TRUE(std::equal(seq.output_token_ids().begin(), seq.output_token_ids().end(), e.tokens.begin()))
          << r.id() << " seq " << k;
    }
  }

  // The slot of position `pos` in group `g`'s blocks. A block belongs to one
  // group at a time, so one token per slot stands for every group's K/V.
  int32_t& Slot(const ScheduledSequence& e, size_t g, int64_t pos) {
    const size_t index = static_cast<size_t>(pos / kBlockSize);
    const std::vector<int32_t>& table = e.block_tables[g];
    EXPECT_LT(index, table.size()) << "a position beyond the block table";
    const int32_t block = index < table.size() ? table[index] : kNullBlock;
    EXPECT_NE(block, kNullBlock) << "position " << pos << " of group " << g << " has left the pool";
    return kv_.at(static_cast<size_t>(std::max(block, 0)) * kBlockSize + pos % kBlockSize);
  }

  // The first position a group's layers read for queries from `first_query` on.
  int64_t FirstVisible(size_t g, int64_t first_query) const {
    const int64_t w = groups_[g].sliding_window;
    return w == 0 ? 0 : std::max<int64_t>(0, first_query - w + 1);
  }

  const Sequence* FindSequence(const ScheduledSequence& e) const {
    const Request* r = scheduler_->request(e.handle);
    return r ? &r->sequence(e.seq_index) : nullptr;
  }

  void Step() {
    StepPlan plan = scheduler_->Schedule();
    ASSERT_LE(plan.num_batched_tokens, 32);
    ASSERT_LE(plan.seqs.size(), 8u);
    int32_t prompt_chunks = 0;
    for (const ScheduledSequence& e : plan.seqs) {
      const int64_t size = static_cast<int64_t>(e.token_ids.size());
      if (threshold_ > 0) {
        ASSERT_LE(size, threshold_) << e.request->id();
      }
      counts_.capped_chunks += size == threshold_ && !e.needs_logits;
      prompt_chunks += size > 1;
    }
    counts_.shared_prefill_steps += prompt_chunks > 1;
    // The runner: copies first, then every new token's K/V, then reads.
    for (const BlockCopy& c : plan.copies) {
      std::copy_n(kv_.begin() + c.src * kBlockSize, kBlockSize, kv_.begin() + c.dst * kBlockSize);
    }
    counts_.copies += static_cast<int64_t>(plan.copies.size());
    for (const ScheduledSequence& e : plan.seqs) {
      ASSERT_EQ(e.block_tables.size(), groups_.size());
      const int64_t end = e.num_computed_tokens + static_cast<int64_t>(e.token_ids.size());
      const int64_t held = scheduler_->kv_cache().num_blocks_held(e.seq_id);
      ASSERT_LE(held, MaxBlocksPerSequence(groups_, kBlockSize, end, 32)) << e.request->id();
      for (size_t g = 0; g < groups_.size(); ++g) {
        counts_.released_entries += std::count(e.block_tables[g].begin(), e.block_tables[g].end(), kNullBlock);
        for (size_t i = 0; i < e.token_ids.size(); ++i) Slot(e, g, e.num_computed_tokens + i) = e.token_ids[i];
      }
    }
    std::vector<std::vector<int32_t>> sampled;
    for (const ScheduledSequence& e : plan.seqs) {
      const Sequence* seq = FindSequence(e);
      ASSERT_NE(seq, nullptr);
      ASSERT_FALSE(e.token_ids.empty()) << "a prefix hit must leave the last token to compute";
      // Every group's layers read what they can see for this step's
      // queries: all earlier positions, or those inside the window. A
      // prefix hit must bring exactly this sequence's tokens there.
      counts_.cached_tokens += e.num_cached_tokens;
      const int64_t end = e.num_computed_tokens + static_cast<int64_t>(e.token_ids.size());
      for (size_t g = 0; g < groups_.size(); ++g) {
        for (int64_t pos = FirstVisible(g, e.num_computed_tokens); pos < end; ++pos) {
          ASSERT_EQ(Slot(e, g, pos), seq->token_ids()[pos])
              << e.request->id() << ": wrong K/V at " << pos << " in group " << g << " (cached up to "
              << e.num_cached_tokens << ")";
        }
      }
      std::vector<int32_t> tokens;
      if (e.needs_logits) {
        const std::vector<int32_t> context(seq->token_ids().begin(), seq->token_ids().begin() + end);
        for (int32_t k = 0; k < e.num_samples; ++k) tokens.push_back(FakeToken(context, k));
        if (e.num_samples > 1) ++counts_.forked;
        // A beam's candidates are known (the engine keeps them through a preemption).
        if (seq->request().parks()) beam_ready_[e.request->id()].insert(e.seq_index);
      }
      sampled.push_back(std::move(tokens));
    }
    // Sometimes a client goes away while the step runs.
    if (Chance(0.01)) AbortSomething();
    UpdateResult result = scheduler_->Update(plan, sampled);
    for (const std::unique_ptr<Request>& r : result.finished_requests) CheckFinished(*r);
    EndBeamRounds();
  }

  void EndBeamRounds() {
    for (auto it = beam_ready_.begin(); it != beam_ready_.end();) {
      const std::string id = it->first;
      const Request* r = scheduler_->request(id);
      ASSERT_NE(r, nullptr);
      if (static_cast<int32_t>(it->second.size()) < r->num_sequences()) {
        ++it;
        continue;
      }
      std::vector<std::vector<int32_t>> beams;
      for (int32_t k = 0; k < r->num_sequences(); ++k) {
        if (r->sequence(k).status() == RequestStatus::kPreempted) ++counts_.suspended_beams;
        const auto tokens = r->sequence(k).token_ids();
        beams.emplace_back(tokens.begin(), tokens.end());
      }
      const std::vector<ParkedSuccessor> children = FakeBeamChildren(
          beams, r->params().beam_width, r->sequence(0).num_output_tokens(), *r->params().max_tokens);
      ++counts_.beam_rounds;
      it = beam_ready_.erase(it);
      if (children.empty()) {
        CheckFinishedBeams(*scheduler_->DropParked(r->handle(), 0));
      } else {
        scheduler_->ForkParked(r->handle(), children, std::ssize(children));
      }
    }
  }

  void CheckFinishedBeams(const Request& r) {
    ++counts_.finished;
    ++counts_.beams_finished;
    live_.erase(r.id());
    const std::vector<std::vector<int32_t>> expected = BeamOracle(r);
    ASSERT_EQ(r.num_sequences(), static_cast<int32_t>(expected.size())) << r.id();
    for (int32_t k = 0; k < r.num_sequences(); ++k) {
      const auto tokens = r.sequence(k).token_ids();
      EXPECT_EQ(std::vector<int32_t>(tokens.begin(), tokens.end()), expected[k]) << r.id() << " beam " << k;
    }
  }

  void CheckFinished(const Request& r) {
    ++counts_.finished;
    live_.erase(r.id());
    ASSERT_EQ(r.num_sequences(), r.params().num_sequences());
    for (int32_t k = 0; k < r.num_sequences(); ++k) {
      const Sequence& seq = r.sequence(k);
      const Expected e = Oracle(r, k, 64);
      EXPECT_EQ(std::vector<int32_t>(seq.output_token_ids().begin(), seq.output_token_ids().end()), e.tokens)
          << r.id() << " seq " << k << " after " << seq.num_preemptions() << " preemptions";
      EXPECT_EQ(seq.status(), e.status) << r.id();
      EXPECT_EQ(seq.stop_reason(), e.stop_reason) << r.id();
    }
  }

  std::mt19937 rng_;
  const int32_t threshold_;
  const int32_t num_blocks_;
  std::vector<KvCacheGroupSpec> groups_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<int32_t> kv_;  // the token whose K/V each slot holds
  std::vector<std::vector<int32_t>> prefixes_;
  std::set<std::string> live_;
  std::map<std::string, std::set<int32_t>> beam_ready_;  // beam request -> sequences with candidates
  int64_t step_ = 0;
  int64_t next_id_ = 0;
  SimCounts counts_;
};

class SimulationTest : public ::testing::TestWithParam<SimConfig> {};

TEST_P(SimulationTest, EveryRequestGetsItsUnlimitedPoolOutput) {
  Simulation sim(GetParam());
  sim.Run(/*arrival_steps=*/6000, /*drain_steps=*/20000);
  const SimCounts& c = sim.counts();
  const SchedulerStats s = sim.stats();
  // The run must have exercised what it claims to test.
  EXPECT_GT(c.finished, 1000);
  EXPECT_GT(c.aborted, 50);
  EXPECT_GT(c.refused, 0);
  EXPECT_GT(c.forked, 100);
  EXPECT_GT(c.copies, 100);
  EXPECT_GT(s.num_preemptions, 100);
  EXPECT_GT(c.beams_finished, 50);
  EXPECT_GT(c.beam_rounds, 500);
  // Small windowed pools preempt mostly sequences that are not parked.
  EXPECT_GT(c.suspended_beams, GetParam().windows.empty() ? 10 : 0);
  if (GetParam().long_prefill_token_threshold > 0) {
    EXPECT_GT(c.capped_chunks, 1000);
  }
  EXPECT_GT(c.shared_prefill_steps, 500);
  if (GetParam().windows.size() > 1 || (GetParam().windows.size() == 1 && GetParam().windows[0] > 0)) {
    EXPECT_GT(c.released_entries, 1000);
  }
  if (GetParam().prefix_caching) {
    EXPECT_GT(c.cached_tokens, 5000);
    EXPECT_GT(s.prefix_cache_hits, 0);
  } else {
    EXPECT_EQ(c.cached_tokens, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SimulationTest,
                         ::testing::Values(SimConfig{1, SchedulingPolicy::kFcfs, true},
                                           SimConfig{2, SchedulingPolicy::kFcfs, true},
                                           SimConfig{3, SchedulingPolicy::kPriority, true},
                                           SimConfig{4, SchedulingPolicy::kFcfs, false},
                                           SimConfig{5, SchedulingPolicy::kFcfs, true, 6},
                                           SimConfig{6, SchedulingPolicy::kFcfs, true, 5, 3, 1},
                                           SimConfig{7, SchedulingPolicy::kPriority, true, 4, 4, 2},
                                           SimConfig{8, SchedulingPolicy::kFcfs, false, 0, 3, 1},
                                           // Hybrid layouts: Gemma 2's (one windowed group, one full),
                                           // Mistral's (windowed only), Gemma 3's (windowed groups
                                           // outnumber the full one).
                                           SimConfig{9, SchedulingPolicy::kFcfs, true, 0, 1, 1, {8, 0}, 36},
                                           SimConfig{10, SchedulingPolicy::kPriority, true, 5, 3, 1, {12}, 16},
                                           SimConfig{11, SchedulingPolicy::kFcfs, true, 0, 1, 1, {8, 8, 0}, 48},
                                           SimConfig{12, SchedulingPolicy::kFcfs, false, 0, 1, 1, {8, 0}, 36}),
                         [](const auto& info) {
                           const SimConfig& c = info.param;
                           std::string name = "Seed" + std::to_string(c.seed) +
                                              (c.policy == SchedulingPolicy::kFcfs ? "Fcfs" : "Priority") +
                                              (c.prefix_caching ? "" : "NoPrefixCaching");
                           if (c.long_prefill_token_threshold > 0) {
                             name += "Threshold" + std::to_string(c.long_prefill_token_threshold);
                           }
                           if (!c.windows.empty()) {
                             name += "Windows";
                             for (int64_t w : c.windows) name += "_" + std::to_string(w);
                           }
                           if (c.max_num_partial_prefills > 1) {
                             name += "PartialPrefills" + std::to_string(c.max_num_partial_prefills) + "Long" +
                                     std::to_string(c.max_long_partial_prefills);
                           }
                           return name;
                         });

}  // namespace
}  // namespace pagoda
