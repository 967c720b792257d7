#include "pagoda/model/architectures/architectures.h"

#include <algorithm>

namespace pagoda {
namespace {

constexpr Architecture kArchitectures[] = {
    {"gemma2", LoadGemma2}, {"gemma3", LoadGemma3},     {"llama", LoadLlama},
    {"phi3", LoadPhi3},     {"qwen2", LoadQwen2},       {"qwen2moe", LoadQwen2Moe},
    {"qwen3", LoadQwen3},   {"qwen3moe", LoadQwen3Moe},
};

}  // namespace

const Architecture* FindArchitecture(std::string_view name) {
  for (const Architecture& a : kArchitectures) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::vector<std::string_view> ArchitectureNames() {
  std::vector<std::string_view> names;
  for (const Architecture& a : kArchitectures) names.push_back(a.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pagoda
