#include "pagoda/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <cmath>

#include <map>
#include <numeric>
#include <set>

namespace pagoda {
namespace {

constexpr int32_t kBlockSize = 4;
constexpr int32_t kEos = 2;

struct Options {
  int32_t num_blocks = 64;
  int32_t budget = 64;
  int32_t max_num_seqs = 16;
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
  int32_t long_prefill_token_threshold = 0;
  int32_t max_num_partial_prefills = 1;
  int32_t max_long_partial_prefills = 1;
  double step_latency_target = 0;
};

SchedulerConfig Config(const Options& o) {
  SchedulerConfig c;
  c.max_num_batched_tokens = o.budget;
  c.max_num_seqs = o.max_num_seqs;
  c.max_model_len = 256;
  c.policy = o.policy;
  c.long_prefill_token_threshold = o.long_prefill_token_threshold;
  c.max_num_partial_prefills = o.max_num_partial_prefills;
  c.max_long_partial_prefills = o.max_long_partial_prefills;
  c.step_latency_target = o.step_latency_target;
  c.eos_token_id = kEos;
  c.kv = {.num_blocks = o.num_blocks, .block_size = kBlockSize, .enable_prefix_caching = true, .groups = {}};
  auto now = std::make_shared<double>(0);
  c.clock = [now] { return *now += 1; };  // every call is one tick later
  return c;
}

struct RequestSpec {
  int32_t prompt_len = 4;
  int32_t max_tokens = 4;
  int32_t priority = 0;
  double arrival = 0;
  int32_t n = 1;
  int32_t first_token = 100;  // the prompt is first_token, first_token + 1, ...
};

std::unique_ptr<Request> MakeRequest(std::string id, const RequestSpec& spec) {
  std::vector<int32_t> prompt(spec.prompt_len);
  std::iota(prompt.begin(), prompt.end(), spec.first_token);
  SamplingParams p;
  p.max_tokens = spec.max_tokens;
  p.n = spec.n;
  return std::make_unique<Request>(std::move(id), std::move(prompt), p, spec.arrival, spec.priority);
}

// Samples 50 + k for the k-th sample of every row that needs logits.
std::vector<std::vector<int32_t>> Sample(const StepPlan& plan) {
  std::vector<std::vector<int32_t>> sampled;
  for (const ScheduledSequence& e : plan.seqs) {
    std::vector<int32_t> tokens(e.num_samples);
    std::iota(tokens.begin(), tokens.end(), 50);
    sampled.push_back(tokens);
  }
  return sampled;
}

class SchedulerTest : public ::testing::Test {
 protected:
  void Init(const Options& o) { s_ = std::make_unique<Scheduler>(Config(o)); }
  void Add(std::string id, const RequestSpec& spec) {
    ASSERT_TRUE(s_->AddRequest(MakeRequest(std::move(id), spec)).ok());
  }

  // One step; finished requests are kept in finished_.
  StepPlan Step() {
    StepPlan plan = s_->Schedule();
    UpdateResult r = s_->Update(plan, Sample(plan));
    for (auto& req : r.finished_requests) finished_[req->id()] = std::move(req);
    EXPECT_TRUE(s_->CheckInvariants().ok()) << s_->CheckInvariants().ToString();
    return plan;
  }
  void RunToCompletion() {
    for (int i = 0; i < 1000 && s_->has_unfinished_requests(); ++i) Step();
    ASSERT_FALSE(s_->has_unfinished_requests());
    EXPECT_EQ(s_->kv_cache().pool().num_free(), s_->kv_cache().num_blocks());
  }

  RequestHandle H(const std::string& id) const { return s_->request(id)->handle(); }

  std::unique_ptr<Scheduler> s_;
  std::map<std::string, std::unique_ptr<Request>> finished_;
};

TEST_F(SchedulerTest, RefusesRequestsThatCanNeverRun) {
  Init({.num_blocks = 8});  // 32 tokens of KV cache; max_model_len is 256
  Status too_long = s_->AddRequest(MakeRequest("a", {.prompt_len = 256}));
  EXPECT_EQ(too_long.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_long.message().find("max_model_len"), std::string::npos);

  Status too_big = s_->AddRequest(MakeRequest("b", {.prompt_len = 20, .max_tokens = 13}));
  EXPECT_EQ(too_big.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(too_big.message().find("KV cache"), std::string::npos);

  EXPECT_TRUE(s_->AddRequest(MakeRequest("c", {.prompt_len = 20, .max_tokens = 12})).ok());
  EXPECT_EQ(s_->AddRequest(MakeRequest("c", {})).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s_->AddRequest(MakeRequest("d", {.prompt_len = 0})).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s_->AddRequest(MakeRequest("e", {.n = 17})).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s_->stats().num_waiting_requests, 1);
}

TEST_F(SchedulerTest, ChunksALongPromptWithinTheTokenBudget) {
  Init({.budget = 8});
  Add("a", {.prompt_len = 20, .max_tokens = 4});
  std::vector<int64_t> starts, sizes;
  for (int i = 0; i < 3; ++i) {
    StepPlan p = Step();
    ASSERT_EQ(p.seqs.size(), 1u);
    starts.push_back(p.seqs[0].num_computed_tokens);
    sizes.push_back(static_cast<int64_t>(p.seqs[0].token_ids.size()));
    EXPECT_EQ(p.seqs[0].needs_logits, i == 2);
    EXPECT_EQ(p.num_batched_tokens, sizes.back());
    EXPECT_EQ(p.seqs[0].block_tables[0].size(), static_cast<size_t>((starts.back() + sizes.back() + 3) / 4));
  }
  EXPECT_EQ(starts, (std::vector<int64_t>{0, 8, 16}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{8, 8, 4}));
  EXPECT_EQ(s_->stats().generation_tokens, 1);
  EXPECT_EQ(s_->stats().prompt_tokens, 20);

  // A decode and a prefill chunk share the next step; running goes first.
  Add("b", {.prompt_len = 20, .first_token = 500});
  StepPlan p = Step();
  ASSERT_EQ(p.seqs.size(), 2u);
  EXPECT_EQ(p.seqs[0].request->id(), "a");
  EXPECT_EQ(p.seqs[0].token_ids.size(), 1u);
  EXPECT_TRUE(p.seqs[0].needs_logits);
  EXPECT_EQ(p.seqs[1].request->id(), "b");
  EXPECT_EQ(p.seqs[1].token_ids.size(), 7u);
  EXPECT_EQ(p.num_batched_tokens, 8);
  RunToCompletion();
}

// "request:tokens" for each entry of a plan, in plan order.
std::vector<std::string> Chunks(const StepPlan& plan) {
  std::vector<std::string> out;
  for (const ScheduledSequence& e : plan.seqs) out.push_back(e.request->id() + ":" + std::to_string(e.token_ids.size()));
  return out;
}

using Plan = std::vector<std::string>;

TEST_F(SchedulerTest, LongPrefillThresholdCapsRunningAndWaitingSequences) {
  Init({.budget = 64, .long_prefill_token_threshold = 8});
  Add("a", {.prompt_len = 20, .first_token = 100});
  Add("b", {.prompt_len = 5, .first_token = 200});
  // a: 8 + 8 + 4 prompt tokens, then decodes; b fits under the cap at once.
  EXPECT_EQ(Chunks(Step()), (Plan{"a:8", "b:5"}));
  EXPECT_EQ(Chunks(Step()), (Plan{"a:8", "b:1"}));
  const StepPlan last = Step();
  EXPECT_EQ(Chunks(last), (Plan{"a:4", "b:1"}));
  EXPECT_TRUE(last.seqs[0].needs_logits);
  RunToCompletion();
}

TEST_F(SchedulerTest, ShortPromptsOvertakeALongOneOverTheLongPrefillLimit) {
  // Two prefills may run at once, one of them long (over 8 tokens left);
  // the budget's even share (64 / 2) is above the threshold.
  Init({.budget = 64, .long_prefill_token_threshold = 8, .max_num_partial_prefills = 2});
  Add("long1", {.prompt_len = 20, .first_token = 100});
  Add("long2", {.prompt_len = 20, .first_token = 200});
  Add("short", {.prompt_len = 6, .first_token = 300});
  EXPECT_EQ(Chunks(Step()), (Plan{"long1:8", "short:6"}));  // long2 keeps its place
  EXPECT_EQ(s_->stats().num_waiting_requests, 1);
  EXPECT_EQ(Chunks(Step()), (Plan{"long1:8", "short:1"}));
  // long1 has 4 left: no longer long, so long2 starts.
  EXPECT_EQ(Chunks(Step()), (Plan{"long1:4", "short:1", "long2:8"}));
  RunToCompletion();
  EXPECT_EQ(finished_.size(), 3u);
}

TEST_F(SchedulerTest, LongPrefillLimitNeedsConcurrentPartialPrefills) {
  // With max_num_partial_prefills 1 (vLLM's default) nothing waits for the
  // long limit: both long prompts start, each capped.
  Init({.budget = 64, .long_prefill_token_threshold = 8});
  Add("long1", {.prompt_len = 20, .first_token = 100});
  Add("long2", {.prompt_len = 20, .first_token = 200});
  EXPECT_EQ(Chunks(Step()), (Plan{"long1:8", "long2:8"}));
  RunToCompletion();
}

TEST_F(SchedulerTest, ConcurrentPartialPrefillsShareTheBudgetEvenly) {
  // Three prefills can run (at most four): each gets 16 / 3 = 5 tokens.
  Init({.budget = 16, .max_num_partial_prefills = 4, .max_long_partial_prefills = 4});
  Add("a", {.prompt_len = 12, .first_token = 100});
  Add("b", {.prompt_len = 12, .first_token = 200});
  Add("c", {.prompt_len = 12, .first_token = 300});
  EXPECT_EQ(Chunks(Step()), (Plan{"a:5", "b:5", "c:5"}));
  EXPECT_EQ(Chunks(Step()), (Plan{"a:5", "b:5", "c:5"}));
  // Two tokens left each: still three prefills.
  EXPECT_EQ(Chunks(Step()), (Plan{"a:2", "b:2", "c:2"}));
  // Now decodes, which do not share: nothing is capped.
  Add("d", {.prompt_len = 12, .first_token = 400});
  EXPECT_EQ(Chunks(Step()), (Plan{"a:1", "b:1", "c:1", "d:12"}));
  RunToCompletion();
}

TEST_F(SchedulerTest, CapsRunningSequencesCountingForksAhead) {
  Init({.max_num_seqs = 3});
  Add("pair", {.n = 2, .first_token = 100});
  Add("one", {.first_token = 200});
  Add("two", {.first_token = 300});
  StepPlan p = Step();
  ASSERT_EQ(p.seqs.size(), 2u);  // "pair" holds 2 slots before it forks
  EXPECT_EQ(p.seqs[0].request->id(), "pair");
  EXPECT_EQ(p.seqs[1].request->id(), "one");
  EXPECT_EQ(s_->stats().num_running_seqs, 4 - 1);
  EXPECT_EQ(s_->stats().num_waiting_requests, 1);
  RunToCompletion();
  EXPECT_EQ(finished_.size(), 3u);
}

TEST_F(SchedulerTest, ForksAfterThePromptAndCopiesTheSharedPartialBlockOnWrite) {
  Init({});
  Add("a", {.prompt_len = 6, .max_tokens = 3, .n = 3});
  StepPlan p1 = s_->Schedule();
  ASSERT_EQ(p1.seqs.size(), 1u);
  EXPECT_TRUE(p1.seqs[0].needs_logits);
  EXPECT_EQ(p1.seqs[0].num_samples, 3);
  const std::vector<int32_t> prompt_blocks(p1.seqs[0].block_tables[0].begin(), p1.seqs[0].block_tables[0].end());
  UpdateResult r1 = s_->Update(p1, std::vector<std::vector<int32_t>>{{50, 51, 52}});
  ASSERT_EQ(r1.outputs.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(r1.outputs[k].seq_index, k);
    EXPECT_EQ(r1.outputs[k].new_token_ids, std::vector<int32_t>{50 + k});
  }
  ASSERT_TRUE(s_->CheckInvariants().ok());
  EXPECT_DOUBLE_EQ(s_->kv_cache().usage(), 2.0 / 64);  // three tables, two blocks

  StepPlan p2 = Step();
  ASSERT_EQ(p2.seqs.size(), 3u);
  // The first two writers copy the partial block; the last writes in place.
  ASSERT_EQ(p2.copies.size(), 2u);
  std::set<int32_t> last_blocks;
  for (const ScheduledSequence& e : p2.seqs) {
    EXPECT_EQ(e.num_computed_tokens, 6);
    EXPECT_EQ(e.block_tables[0][0], prompt_blocks[0]);  // the full block stays shared
    last_blocks.insert(e.block_tables[0][1]);
  }
  EXPECT_EQ(last_blocks.size(), 3u);
  for (const BlockCopy& c : p2.copies) {
    EXPECT_EQ(c.src, prompt_blocks[1]);
    EXPECT_TRUE(last_blocks.contains(c.dst));
  }
  EXPECT_TRUE(last_blocks.contains(prompt_blocks[1]));
  EXPECT_EQ(s_->stats().prompt_tokens, 6);  // computed once for all three
  RunToCompletion();
  ASSERT_EQ(finished_["a"]->num_sequences(), 3);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(finished_["a"]->sequence(k).num_output_tokens(), 3);
}

// Two requests outgrow a 4-block pool; `old_low` arrived first with low
// priority, `new_high` later with high priority.
class PreemptionTest : public SchedulerTest, public ::testing::WithParamInterface<SchedulingPolicy> {};

TEST_P(PreemptionTest, PicksTheVictimByPolicyAndResumesItFromItsCachedPrefix) {
  Init({.num_blocks = 4, .policy = GetParam()});
  Add("old_low", {.prompt_len = 4, .max_tokens = 8, .priority = 5, .arrival = 0, .first_token = 100});
  Add("new_high", {.prompt_len = 4, .max_tokens = 8, .priority = 0, .arrival = 1, .first_token = 200});
  const std::string expected_victim = GetParam() == SchedulingPolicy::kFcfs ? "new_high" : "old_low";
  std::optional<SeqId> victim;
  std::optional<int64_t> resumed_from;
  for (int i = 0; i < 100 && s_->has_unfinished_requests(); ++i) {
    const Request* v = s_->request(expected_victim);
    const SeqId victim_id = v ? v->sequence(0).id() : -1;
    StepPlan p = Step();
    if (!victim && !p.preempted.empty()) {
      ASSERT_EQ(p.preempted.size(), 1u);
      victim = p.preempted[0];
      EXPECT_EQ(*victim, victim_id);
      for (const ScheduledSequence& e : p.seqs) EXPECT_NE(e.seq_id, *victim);
    } else if (victim && !resumed_from) {
      for (const ScheduledSequence& e : p.seqs) {
        if (e.seq_id == *victim) resumed_from = e.num_cached_tokens;
      }
    }
  }
  ASSERT_TRUE(victim.has_value());
  EXPECT_EQ(s_->stats().num_preemptions, 1);
  // Its blocks were freed tail first, so the other request took its last
  // full block and its first one was still cached when it resumed.
  EXPECT_EQ(resumed_from, 4);
  for (const char* id : {"old_low", "new_high"}) {
    ASSERT_TRUE(finished_.contains(id));
    const Sequence& seq = finished_[id]->sequence(0);
    EXPECT_EQ(seq.status(), RequestStatus::kFinishedLength);
    EXPECT_EQ(std::vector<int32_t>(seq.output_token_ids().begin(), seq.output_token_ids().end()),
              std::vector<int32_t>(8, 50));
  }
  EXPECT_EQ(finished_[expected_victim]->sequence(0).num_preemptions(), 1);
}

INSTANTIATE_TEST_SUITE_P(Policies, PreemptionTest,
                         ::testing::Values(SchedulingPolicy::kFcfs, SchedulingPolicy::kPriority),
                         [](const auto& info) { return info.param == SchedulingPolicy::kFcfs ? "Fcfs" : "Priority"; });

TEST_F(SchedulerTest, PriorityPolicyAdmitsTheHighestPriorityFirst) {
  Init({.max_num_seqs = 1, .policy = SchedulingPolicy::kPriority});
  Add("late_urgent", {.priority = -1, .arrival = 5, .first_token = 100});
  Add("early", {.priority = 0, .arrival = 0, .first_token = 200});
  Add("later", {.priority = 0, .arrival = 1, .first_token = 300});
  std::vector<std::string> order;
  for (int i = 0; i < 100 && s_->has_unfinished_requests(); ++i) {
    for (const ScheduledSequence& e : Step().seqs) {
      if (order.empty() || order.back() != e.request->id()) order.push_back(e.request->id());
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"late_urgent", "early", "later"}));
}

TEST_F(SchedulerTest, AbortsWaitingAndRunningRequestsAndFreesTheirBlocks) {
  Init({.max_num_seqs = 1});
  Add("running", {.prompt_len = 10, .first_token = 100});
  Add("waiting", {.prompt_len = 10, .first_token = 200});
  Step();
  EXPECT_GT(s_->kv_cache().usage(), 0);
  const SeqId running_seq = s_->request("running")->sequence(0).id();
  const SeqId waiting_seq = s_->request("waiting")->sequence(0).id();

  std::unique_ptr<Request> a = s_->AbortRequest("running");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status(), RequestStatus::kFinishedAborted);
  EXPECT_EQ(FinishReasonOf(a->sequence(0).status()), FinishReason::kAbort);
  EXPECT_EQ(s_->kv_cache().pool().num_free(), s_->kv_cache().num_blocks());
  EXPECT_EQ(s_->AbortRequest("running"), nullptr);
  ASSERT_TRUE(s_->CheckInvariants().ok());

  // Aborted between Schedule and Update: the update skips it.
  StepPlan p = s_->Schedule();
  EXPECT_EQ(p.finished, std::vector<SeqId>{running_seq});
  ASSERT_EQ(p.seqs.size(), 1u);
  ASSERT_NE(s_->AbortRequest("waiting"), nullptr);
  UpdateResult r = s_->Update(p, Sample(p));
  EXPECT_TRUE(r.outputs.empty());
  EXPECT_FALSE(s_->has_unfinished_requests());
  EXPECT_EQ(s_->kv_cache().pool().num_free(), s_->kv_cache().num_blocks());
  EXPECT_EQ(s_->Schedule().finished, std::vector<SeqId>{waiting_seq});
}

TEST_F(SchedulerTest, StopsOneSequenceForTheEngine) {
  Init({});
  Add("a", {.prompt_len = 5, .max_tokens = 8, .n = 2});
  Step();
  ASSERT_EQ(s_->request("a")->num_sequences(), 2);
  EXPECT_EQ(s_->StopSequence(H("a"), 1, StopReason("\n\n")), nullptr);  // sequence 0 still runs
  EXPECT_EQ(s_->request("a")->sequence(1).status(), RequestStatus::kFinishedStopped);
  ASSERT_TRUE(s_->CheckInvariants().ok());
  EXPECT_EQ(s_->Schedule().finished.size(), 1u);
  std::unique_ptr<Request> done = s_->StopSequence(H("a"), 0, std::nullopt);
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(std::get<std::string>(*done->sequence(1).stop_reason()), "\n\n");
  EXPECT_FALSE(s_->has_unfinished_requests());
  EXPECT_EQ(s_->kv_cache().pool().num_free(), s_->kv_cache().num_blocks());
}

TEST_F(SchedulerTest, CountsPrefixCacheHitsAndRecordsTimings) {
  Init({});
  Add("a", {.prompt_len = 10, .first_token = 100});
  Step();
  std::unique_ptr<Request> b = MakeRequest("b", {.prompt_len = 10, .first_token = 100});
  std::vector<int32_t> prompt = b->prompt_token_ids();
  prompt[9] = 7;  // same first two blocks
  ASSERT_TRUE(s_->AddRequest(std::make_unique<Request>("b", prompt, b->params(), 0.0)).ok());
  StepPlan p = Step();
  ASSERT_EQ(p.seqs.size(), 2u);
  EXPECT_EQ(p.seqs[1].num_cached_tokens, 8);
  EXPECT_EQ(p.seqs[1].num_computed_tokens, 8);
  EXPECT_EQ(p.seqs[1].token_ids.size(), 2u);
  EXPECT_EQ(s_->request("b")->num_cached_tokens(), 8);
  EXPECT_EQ(s_->stats().prefix_cache_queries, 20);
  EXPECT_EQ(s_->stats().prefix_cache_hits, 8);
  RunToCompletion();
  const RequestTiming& t = finished_["a"]->timing();
  ASSERT_TRUE(t.first_scheduled && t.first_token && t.last_token);
  EXPECT_LE(*t.first_scheduled, *t.first_token);
  EXPECT_LT(*t.first_token, *t.last_token);
}

std::unique_ptr<Request> MakeBeamRequest(std::string id, int32_t prompt_len, int32_t width) {
  std::vector<int32_t> prompt(prompt_len);
  std::iota(prompt.begin(), prompt.end(), 100);
  SamplingParams p;
  p.use_beam_search = true;
  p.beam_width = width;
  p.temperature = 0;
  p.max_tokens = 8;
  auto r = std::make_unique<Request>(std::move(id), std::move(prompt), p, 0.0);
  r->set_parks(true);  // as the engine marks a beam request
  return r;
}

TEST_F(SchedulerTest, BeamRoundsForkAndDropSequencesSharingTheirPast) {
  Init({});
  ASSERT_TRUE(s_->AddRequest(MakeBeamRequest("b", 6, 2)).ok());
  // The prompt computes once; its logits go to the engine, not to a sample.
  StepPlan p1 = s_->Schedule();
  ASSERT_EQ(p1.seqs.size(), 1u);
  EXPECT_TRUE(p1.seqs[0].needs_logits);
  EXPECT_EQ(p1.seqs[0].num_samples, 0);
  EXPECT_TRUE(s_->Update(p1, Sample(p1)).outputs.empty());
  const std::vector<int32_t> prompt_blocks(p1.seqs[0].block_tables[0].begin(), p1.seqs[0].block_tables[0].end());
  // Parked: nothing to compute until the round ends.
  EXPECT_TRUE(s_->Schedule().empty());

  // Round 1: two beams from the prompt share both its blocks.
  s_->ForkParked(H("b"), std::vector<ParkedSuccessor>{{0, 50}, {0, 51}}, 2);
  const Request& r = *s_->request("b");
  ASSERT_EQ(r.num_sequences(), 2);
  const KvCacheManager& kv = s_->kv_cache();
  EXPECT_EQ(kv.pool().ref_count(prompt_blocks[0]), 2);
  EXPECT_EQ(kv.pool().ref_count(prompt_blocks[1]), 2);
  EXPECT_EQ(s_->stats().prompt_tokens, 6);
  EXPECT_EQ(s_->stats().generation_tokens, 2);
  StepPlan p2 = s_->Schedule();
  ASSERT_EQ(p2.seqs.size(), 2u);
  EXPECT_EQ(p2.copies.size(), 1u);  // the first writer copies the shared partial block
  s_->Update(p2, Sample(p2));
  const std::vector<int32_t> beam1_table(p2.seqs[1].block_tables[0].begin(), p2.seqs[1].block_tables[0].end());

  // Round 2: both children continue beam 1; beam 0 is dropped and its
  // private block freed, the shared full block kept by beam 1's children.
  s_->ForkParked(H("b"), std::vector<ParkedSuccessor>{{1, 60}, {1, 61}}, 2);
  ASSERT_TRUE(s_->CheckInvariants().ok()) << s_->CheckInvariants().ToString();
  for (int k = 0; k < 2; ++k) {
    const auto tokens = r.sequence(k).token_ids();
    EXPECT_EQ(std::vector<int32_t>(tokens.begin() + 6, tokens.end()), (std::vector<int32_t>{51, 60 + k}));
  }
  EXPECT_EQ(kv.pool().ref_count(beam1_table[0]), 2);
  EXPECT_EQ(kv.pool().ref_count(beam1_table[1]), 2);
  EXPECT_EQ(kv.usage(), 2.0 / 64);

  // The search ends: the request comes back finished and every block is free.
  StepPlan p3 = s_->Schedule();
  s_->Update(p3, Sample(p3));
  std::unique_ptr<Request> done = s_->DropParked(H("b"), 1);
  ASSERT_NE(done, nullptr);
  EXPECT_TRUE(done->finished());
  EXPECT_FALSE(s_->has_unfinished_requests());
  EXPECT_EQ(kv.pool().num_free(), kv.num_blocks());
}

TEST_F(SchedulerTest, SuspendsAParkedBeamRatherThanStarveItsSibling) {
  // 6 blocks of 4 tokens; a 15-token prompt fills blocks A B C and 3 slots of D.
  Init({.num_blocks = 6});
  ASSERT_TRUE(s_->AddRequest(MakeBeamRequest("b", 15, 2)).ok());
  StepPlan p1 = s_->Schedule();
  s_->Update(p1, Sample(p1));
  s_->ForkParked(H("b"), std::vector<ParkedSuccessor>{{0, 50}, {0, 51}}, 2);
  // Position 15: beam 0 copies the shared D, beam 1 writes D in place.
  // Five blocks are used, one is free.
  StepPlan p2 = s_->Schedule();
  ASSERT_EQ(p2.copies.size(), 1u);
  s_->Update(p2, Sample(p2));
  s_->ForkParked(H("b"), std::vector<ParkedSuccessor>{{0, 60}, {1, 61}}, 2);
  // Position 16 needs a new block for each beam. Beam 0 takes the free one;
  // beam 1 finds none and preempts itself. Next step beam 0 is parked and
  // beam 1 still does not fit: the parked beam is suspended to let it in.
  for (int i = 0; i < 4 && s_->request("b")->sequence(1).num_computed_tokens() < 17; ++i) {
    StepPlan p = s_->Schedule();
    s_->Update(p, Sample(p));
    ASSERT_TRUE(s_->CheckInvariants().ok()) << s_->CheckInvariants().ToString();
  }
  const Request& r = *s_->request("b");
  ASSERT_EQ(r.sequence(1).num_computed_tokens(), 17);
  EXPECT_EQ(r.sequence(0).status(), RequestStatus::kPreempted);
  EXPECT_EQ(s_->stats().num_preemptions, 2);
  // A suspended beam waits for the round's end, not in the queue.
  EXPECT_TRUE(s_->Schedule().empty());
  EXPECT_EQ(s_->stats().num_waiting_seqs, 1);

  // Beam 0 wins the round; its successor, with no blocks to share, is
  // recomputed (from the prefix cache) and the search ends.
  s_->ForkParked(H("b"), std::vector<ParkedSuccessor>{{0, 70}}, 1);
  EXPECT_EQ(r.sequence(0).num_computed_tokens(), 0);
  for (int i = 0; i < 4 && r.sequence(0).num_computed_tokens() < 18; ++i) Step();
  EXPECT_EQ(r.sequence(0).num_computed_tokens(), 18);
  ASSERT_NE(s_->DropParked(H("b"), 0), nullptr);
  EXPECT_EQ(s_->kv_cache().pool().num_free(), s_->kv_cache().num_blocks());
}

TEST_F(SchedulerTest, AFixedBudgetIgnoresStepTimes) {
  Init({.budget = 48});
  s_->ObserveStep(48, 100.0);
  EXPECT_EQ(s_->step_token_budget(), 48);
  Add("a", {.prompt_len = 100});
  EXPECT_EQ(Step().num_batched_tokens, 48);
}

TEST_F(SchedulerTest, ASizedBudgetFollowsMeasuredStepTimes) {
  Init({.num_blocks = 256, .budget = 1024, .step_latency_target = 0.2});
  // Steps costing 5 ms plus 1 ms a token: 195 tokens fit in 200 ms.
  const double fixed = 0.005, per_token = 0.001;
  for (int64_t tokens : {16, 300, 16, 300}) s_->ObserveStep(tokens, fixed + per_token * static_cast<double>(tokens));
  const auto fits = static_cast<int64_t>(std::floor((0.2 - fixed) / per_token));
  EXPECT_NEAR(s_->step_token_budget(), fits, 1);
  Add("long", {.prompt_len = 250});
  EXPECT_EQ(Step().num_batched_tokens, s_->step_token_budget());
}

// A sized step whose budget is below its decodes' count still runs every
// running decode, and a prefill ahead of them in the running order takes
// only what their reservation leaves.
TEST_F(SchedulerTest, ASizedStepKeepsEveryRunningDecode) {
  constexpr int kShort = 20;
  Init({.num_blocks = 256,
        .budget = 64,
        .max_num_seqs = 32,
        .policy = SchedulingPolicy::kPriority,
        .step_latency_target = 0.2});
  for (int i = 0; i < kShort; ++i) {
    Add("short" + std::to_string(i), {.prompt_len = 2, .max_tokens = 20, .priority = 1});
  }
  Step();  // the short prompts
  Add("long", {.prompt_len = 200, .max_tokens = 4, .priority = 0});
  Step();  // their first decodes; the long prompt starts
  // Slow steps: the measured budget drops to its floor, below the decodes.
  for (int i = 0; i < 4; ++i) s_->ObserveStep(20, 100.0);
  ASSERT_LT(s_->step_token_budget(), kShort);
  const StepPlan plan = Step();  // the long prefill now runs first (priority 0)
  ASSERT_EQ(plan.seqs.size(), kShort + 1u);
  EXPECT_EQ(plan.seqs[0].request->id(), "long");
  int64_t decodes = 0;
  for (const ScheduledSequence& e : plan.seqs) decodes += e.request->id() != "long" && e.token_ids.size() == 1;
  EXPECT_EQ(decodes, kShort);
  // The step's tokens: the decodes plus the floor's prefill tokens, which
  // all went to the long prompt.
  EXPECT_GT(plan.seqs[0].token_ids.size(), 0u);
  EXPECT_EQ(plan.num_batched_tokens, kShort + static_cast<int64_t>(plan.seqs[0].token_ids.size()));
  RunToCompletion();
}

}  // namespace
}  // namespace pagoda
