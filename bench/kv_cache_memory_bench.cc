// How much KV cache one long request holds on windowed models, with the
// hybrid paged cache against a cache that keeps every layer's whole
// sequence. Each shape is a public checkpoint's (its config.json: layers,
// KV heads, head size, sliding window and which layers are windowed); the
// request runs through the real layout planner and KvCacheManager, its
// prompt in chunks of the engine's default max_num_batched_tokens, then
// decoding to the end; the peak of the blocks it holds (during the prompt's
// chunks) and what it holds at the end (while decoding) are reported.
//
//   pagoda_bench_kv_memory [TOKENS]     (default 8192)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "pagoda/kv_blocks/kv_cache_manager.h"
#include "pagoda/request/request.h"
#include "pagoda/runner/kv_cache_arena.h"
#include "pagoda/runner/kv_cache_layout.h"

namespace pagoda {
namespace {

struct Shape {
  std::string name;
  int64_t num_layers, num_kv_heads, head_dim, window;
  // Every `pattern`-th layer (the last of each run) attends globally; 1: all windowed.
  int64_t pattern;
};

constexpr int32_t kBlockSize = 16;
constexpr int64_t kChunk = 2048;  // EngineConfig's default max_num_batched_tokens

void Report(const Shape& s, int64_t num_tokens) {
  std::vector<int64_t> windows(s.num_layers);
  for (int64_t l = 0; l < s.num_layers; ++l) windows[l] = s.pattern > 1 && (l + 1) % s.pattern == 0 ? 0 : s.window;
  const KvCacheLayout layout = PlanKvCacheLayout(windows);
  const KvCacheShape hybrid{layout.num_slots, s.num_kv_heads, s.head_dim, kBlockSize, DType::kF16};
  const KvCacheShape full{s.num_layers, s.num_kv_heads, s.head_dim, kBlockSize, DType::kF16};
  const int64_t full_blocks = (num_tokens + kBlockSize - 1) / kBlockSize;
  KvCacheManager kv({.num_blocks = static_cast<int32_t>(full_blocks * static_cast<int64_t>(layout.groups.size())),
                     .block_size = kBlockSize,
                     .enable_prefix_caching = false,
                     .groups = layout.groups});
  std::vector<int32_t> tokens(num_tokens, 7);
  Request request("r", tokens, SamplingParams{}, 0.0, 0, CacheKeys{});
  Sequence& seq = request.sequence(0);
  seq.assign_id(0);
  int64_t peak = 0;
  while (seq.num_computed_tokens() < num_tokens) {
    const int64_t done = seq.num_computed_tokens();
    // The prompt is all but the last 128 tokens; those come one by one, as decoding does.
    const int64_t n = done < num_tokens - 128 ? std::min(kChunk, num_tokens - 128 - done) : 1;
    if (!kv.AllocateSlots(seq, n).ok()) {
      fmt::print("{}: allocation failed\n", s.name);
      return;
    }
    peak = std::max(peak, kv.num_blocks_held(seq.id()));
    seq.set_num_computed_tokens(done + n);
  }
  const double mib = 1 << 20;
  const double held = static_cast<double>(peak * hybrid.BytesPerBlock()) / mib;
  const double at_end = static_cast<double>(kv.num_blocks_held(seq.id()) * hybrid.BytesPerBlock()) / mib;
  const double whole = static_cast<double>(full_blocks * full.BytesPerBlock()) / mib;
  fmt::print("| {} | {} | {} | {:.1f} MiB ({:.2f}) | {:.1f} MiB ({:.2f}) | {:.1f} MiB |\n", s.name, s.window,
             DescribeKvCacheLayout(layout), held, held / whole, at_end, at_end / whole, whole);
  kv.Free(seq);
}

}  // namespace
}  // namespace pagoda

int main(int argc, char** argv) {
  const int64_t num_tokens = argc > 1 ? std::atoll(argv[1]) : 8192;
  // Shapes from each model's config.json on the Hugging Face Hub.
  const std::vector<pagoda::Shape> shapes = {
      {"Gemma 2 2B", 26, 4, 256, 4096, 2},   {"Gemma 2 9B", 42, 8, 256, 4096, 2},
      {"Gemma 3 4B", 34, 4, 256, 1024, 6},   {"Gemma 3 12B", 48, 8, 256, 1024, 6},
      {"Mistral 7B v0.1", 32, 8, 128, 4096, 1},
  };
  fmt::print("One request of {} tokens, f16 KV cache, blocks of {}, prompt chunks of {}\n\n", num_tokens,
             pagoda::kBlockSize, pagoda::kChunk);
  fmt::print("| model | window | groups | hybrid: peak (of full) | hybrid: decoding (of full) | full cache |\n"
             "|---|---|---|---|---|---|\n");
  for (const pagoda::Shape& s : shapes) pagoda::Report(s, num_tokens);
  return 0;
}
