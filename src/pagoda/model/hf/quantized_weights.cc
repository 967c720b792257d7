#include "pagoda/model/hf/quantized_weights.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/model/hf/config_reader.h"
#include "pagoda/tensor/half.h"

namespace pagoda::hf {
namespace {

using nlohmann::json;

Status Refuse(const ConfigReader& r, const std::string& key, const json& value, const std::string& why) {
  return UnimplementedError(fmt::format("{} = {} is not supported{}", r.Name(key), value.dump(), why));
}

StatusOr<QuantScheme> ReadGptq(const ConfigReader& r, const json& c) {
  QuantScheme s{.format = QuantFormat::kGptq, .method = "gptq"};
  PAGODA_ASSIGN_OR_RETURN(const int64_t bits, r.PositiveInt("bits"));
  if (bits != 4 && bits != 8) return Refuse(r, "bits", c["bits"], " (4 or 8)");
  s.bits = static_cast<int>(bits);
  const json& group = c.value("group_size", json(-1));
  if (!group.is_number_integer() || (group.get<int64_t>() != -1 && group.get<int64_t>() <= 0)) {
    return Refuse(r, "group_size", group, " (a positive integer, or -1)");
  }
  s.group_size = group.get<int64_t>() == -1 ? 0 : group.get<int64_t>();
  // Act-order (desc_act) is read from each layer's g_idx; the flag itself
  // only says how the quantizer ordered its work.
  PAGODA_RETURN_IF_ERROR(r.Bool("desc_act", false).status());
  PAGODA_ASSIGN_OR_RETURN(s.symmetric, r.Bool("sym", true));
  PAGODA_ASSIGN_OR_RETURN(const std::string format, r.String("checkpoint_format", "gptq"));
  if (format != "gptq" && format != "gptq_v2") return Refuse(r, "checkpoint_format", format, "");
  s.gptq_v1 = format == "gptq";
  return s;
}

StatusOr<QuantScheme> ReadAwq(const ConfigReader& r, const json& c) {
  QuantScheme s{.format = QuantFormat::kAwq, .method = "awq"};
  PAGODA_ASSIGN_OR_RETURN(const int64_t bits, r.PositiveInt("bits"));
  if (bits != 4) return Refuse(r, "bits", c["bits"], " (4)");
  PAGODA_ASSIGN_OR_RETURN(s.group_size, r.PositiveInt("group_size"));
  if (s.group_size % 32 != 0) return Refuse(r, "group_size", c["group_size"], " (a multiple of 32)");
  PAGODA_ASSIGN_OR_RETURN(const std::string version, r.String("version", "gemm"));
  if (version != "gemm" && version != "GEMM") return Refuse(r, "version", version, " (gemm)");
  PAGODA_ASSIGN_OR_RETURN(const bool zero_point, r.Bool("zero_point", true));
  if (!zero_point) return Refuse(r, "zero_point", false, " yet");
  return s;
}

// A [rows, cols] block shape from a JSON pair of positive integers.
Status ReadBlock(const ConfigReader& r, const std::string& key, const json& value, QuantScheme& s) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() || !value[1].is_number_integer() ||
      value[0].get<int64_t>() <= 0 || value[1].get<int64_t>() <= 0) {
    return Refuse(r, key, value, " (two positive integers)");
  }
  s.block_rows = value[0].get<int64_t>();
  s.block_cols = value[1].get<int64_t>();
  return Status::Ok();
}

// vLLM's own fp8 checkpoints: e4m3 weights with a per-tensor scale, or
// block-wise ones (weight_block_size, scales in weight_scale_inv).
StatusOr<QuantScheme> ReadFp8(const ConfigReader& r, const json& c) {
  QuantScheme s{.format = QuantFormat::kFp8, .method = "fp8", .bits = 8};
  PAGODA_ASSIGN_OR_RETURN(const std::string activations, r.String("activation_scheme", "dynamic"));
  if (activations != "dynamic" && activations != "static") return Refuse(r, "activation_scheme", activations, "");
  s.static_activations = activations == "static";
  const json& block = c.value("weight_block_size", json());
  if (!block.is_null()) PAGODA_RETURN_IF_ERROR(ReadBlock(r, "weight_block_size", block, s));
  return s;
}

// One config group over every Linear; its weights symmetric ints per group
// or per channel; activations none, or dynamic per-token int8 (W8A8), which
// Pagoda quantizes per 32-element block as its Q8_0 kernels do.
StatusOr<QuantScheme> ReadCompressedTensors(const ConfigReader& r, const json& c) {
  QuantScheme s{.method = "compressed-tensors"};
  const json& groups = c.value("config_groups", json());
  if (!groups.is_object() || groups.size() != 1) return Refuse(r, "config_groups", groups, " (one group)");
  const json& g = groups.begin().value();
  const ConfigReader gr(g, r.where() + " config_groups." + groups.begin().key());
  const std::string format = g.value("format", c.value("format", ""));
  if (format == "pack-quantized") {
    s.format = QuantFormat::kCtPacked;
  } else if (format == "int-quantized") {
    s.format = QuantFormat::kCtInt;
  } else if (format == "float-quantized") {
    s.format = QuantFormat::kFp8;
  } else {
    return Refuse(gr, "format", format, " (pack-quantized, int-quantized or float-quantized)");
  }
  const std::string type = s.format == QuantFormat::kFp8 ? "float" : "int";
  if (g.value("targets", json()) != json::array({"Linear"})) return Refuse(gr, "targets", g.value("targets", json()), "");
  const json& w = g.value("weights", json());
  const ConfigReader wr(w, gr.where() + ".weights");
  if (w.value("type", "") != type) return Refuse(wr, "type", w.value("type", json()), "");
  if (w.value("symmetric", false) != true) return Refuse(wr, "symmetric", w.value("symmetric", json()), " yet");
  if (!w.value("actorder", json()).is_null()) return Refuse(wr, "actorder", w["actorder"], " yet");
  if (w.value("dynamic", false) != false) return Refuse(wr, "dynamic", w["dynamic"], "");
  s.bits = w.value("num_bits", 0);
  if (s.bits != 4 && s.bits != 8) return Refuse(wr, "num_bits", w.value("num_bits", json()), " (4 or 8)");
  if (s.format != QuantFormat::kCtPacked && s.bits != 8) return Refuse(wr, "num_bits", s.bits, " with " + format);
  const std::string strategy = w.value("strategy", "");
  if (strategy == "block" && s.format == QuantFormat::kFp8) {
    PAGODA_RETURN_IF_ERROR(ReadBlock(wr, "block_structure", w.value("block_structure", json()), s));
  } else if (strategy == "group") {
    const json& size = w.value("group_size", json());
    if (!size.is_number_integer() || size.get<int64_t>() <= 0 || size.get<int64_t>() % 32) {
      return Refuse(wr, "group_size", size, " (a multiple of 32)");
    }
    s.group_size = size.get<int64_t>();
  } else if (strategy != "channel" && !(strategy == "tensor" && s.format == QuantFormat::kFp8)) {
    return Refuse(wr, "strategy", strategy, " (group or channel; tensor or block for FP8)");
  }
  const json& in = g.value("input_activations", json());
  if (!in.is_null()) {
    const std::string in_strategy = in.value("strategy", "");
    const bool dynamic = in.value("dynamic", false) == true;
    const bool eight_bit = in.value("num_bits", 0) == 8 && in.value("type", "") == type && in.value("symmetric", false) == true;
    // Dynamic per token, tensor or (FP8_BLOCK) group; static per tensor for FP8 only.
    const bool dynamic_ok = dynamic && (in_strategy == "token" || in_strategy == "tensor" ||
                                        (in_strategy == "group" && s.format == QuantFormat::kFp8));
    const bool static_ok = !dynamic && in_strategy == "tensor" && s.format == QuantFormat::kFp8;
    if (!eight_bit || (!dynamic_ok && !static_ok)) {
      return Refuse(gr, "input_activations", in, " (8-bit, dynamic per token or tensor, or for FP8 per group or static per tensor)");
    }
    s.static_activations = static_ok;
  }
  if (!g.value("output_activations", json()).is_null()) return Refuse(gr, "output_activations", g["output_activations"], "");
  if (!c.value("kv_cache_scheme", json()).is_null()) return Refuse(r, "kv_cache_scheme", c["kv_cache_scheme"], "");
  if (!c.value("sparsity_config", json()).is_null() && !c["sparsity_config"].empty()) {
    return Refuse(r, "sparsity_config", c["sparsity_config"], "");
  }
  return s;
}

const safetensors::SafetensorsTensor* Get(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& name) {
  return ckpt.FindTensor(name);
}

StatusOr<const safetensors::SafetensorsTensor*> Need(const safetensors::SafetensorsCheckpoint& ckpt,
                                                     const std::string& name, safetensors::Dtype dtype,
                                                     std::vector<int64_t> shape) {
  const safetensors::SafetensorsTensor* t = ckpt.FindTensor(name);
  if (t == nullptr) return NotFoundError(fmt::format("checkpoint tensor '{}' is missing", name));
  if (t->dtype != dtype || t->shape != shape) {
    return InvalidArgumentError(fmt::format("checkpoint tensor '{}' is {} [{}], expected {} [{}]", name,
                                            safetensors::DtypeName(t->dtype), fmt::join(t->shape, ", "),
                                            safetensors::DtypeName(dtype), fmt::join(shape, ", ")));
  }
  return t;
}

template <typename T>
T At(const safetensors::SafetensorsTensor& t, int64_t index) {
  T v;
  std::memcpy(&v, t.data.data() + index * sizeof(T), sizeof(T));
  return v;
}

// Field `k` of `bits` bits in the packed words starting at `words`, least
// significant first.
inline uint32_t Field(const safetensors::SafetensorsTensor& t, int64_t word_base, int64_t k, int bits) {
  const int64_t bit = k * bits;
  const uint32_t word = static_cast<uint32_t>(At<int32_t>(t, word_base + bit / 32));
  return (word >> (bit % 32)) & ((1u << bits) - 1);
}

// Element k of a float tensor (F32, F16 or BF16; NaN for other types).
float FloatAt(const safetensors::SafetensorsTensor& t, int64_t k) {
  switch (t.dtype) {
    case safetensors::Dtype::kF32: return At<float>(t, k);
    case safetensors::Dtype::kF16: return F16ToF32(At<f16_bits>(t, k));
    case safetensors::Dtype::kBF16: return BF16ToF32(At<bf16_bits>(t, k));
    default: return std::numeric_limits<float>::quiet_NaN();
  }
}

// An out x in matrix of `dtype` blocks, its bytes allocated.
RepackedMatrix Allocate(DType dtype, int64_t out, int64_t in) {
  RepackedMatrix m;
  m.dtype = dtype;
  m.rows = out;
  m.cols = in;
  m.bytes.resize(static_cast<size_t>(out * DTypeRowBytes(dtype, in)));
  return m;
}

// The repacked rows: q(o, i) in [0, 2^bits) with w = d(o, i0) * (q - 2^(bits-1)),
// d(o, i0) the F16 scale of the 32-element block starting at column i0.
template <typename QFn, typename ScaleFn>
RepackedMatrix Pack(int bits, int64_t out, int64_t in, const QFn& q, const ScaleFn& scale_bits) {
  RepackedMatrix m = Allocate(bits == 4 ? DType::kQ4_0 : DType::kQ8_0, out, in);
  const int64_t blocks = in / kQuantBlock;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t i0 = b * kQuantBlock;
      const f16_bits d = scale_bits(o, i0);
      if (bits == 4) {
        auto* block = reinterpret_cast<BlockQ4_0*>(m.bytes.data()) + o * blocks + b;
        block->d = d;
        for (int j = 0; j < kQuantBlock / 2; ++j) {
          block->qs[j] = static_cast<uint8_t>(q(o, i0 + j) | (q(o, i0 + j + kQuantBlock / 2) << 4));
        }
      } else {
        auto* block = reinterpret_cast<BlockQ8_0*>(m.bytes.data()) + o * blocks + b;
        block->d = d;
        for (int j = 0; j < kQuantBlock; ++j) block->qs[j] = static_cast<int8_t>(static_cast<int>(q(o, i0 + j)) - 128);
      }
    }
  }
  return m;
}

// Rows of w = d(o, i0) * q(o, i) + m(o, i0) as Q4_1, q in [0, 16): AWQ and
// GPTQ with zero points, d = s and m = -z * s, both rounded to F16 (m can
// need up to 4 bits more than F16 holds).
template <typename QFn, typename ScaleFn, typename ZeroFn>
RepackedMatrix PackQ4_1(int64_t out, int64_t in, const QFn& q, const ScaleFn& scale, const ZeroFn& zero) {
  RepackedMatrix m = Allocate(DType::kQ4_1, out, in);
  const int64_t blocks = in / kQuantBlock;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t i0 = b * kQuantBlock;
      auto* block = reinterpret_cast<BlockQ4_1*>(m.bytes.data()) + o * blocks + b;
      const float d = scale(o, i0);
      block->d = F32ToF16(d);
      block->m = F32ToF16(-static_cast<float>(zero(o, i0)) * d);
      for (int j = 0; j < kQuantBlock / 2; ++j) {
        block->qs[j] = static_cast<uint8_t>(q(o, i0 + j) | (q(o, i0 + j + kQuantBlock / 2) << 4));
      }
    }
  }
  return m;
}

// Rows of w(o, i) requantized to Q8_0, each element within half its block's
// step (max |w| of the 32 / 254) of the given value: for values that no GGML
// block holds exactly.
template <typename ValueFn>
RepackedMatrix RequantizeQ8_0(int64_t out, int64_t in, const ValueFn& value) {
  RepackedMatrix m = Allocate(DType::kQ8_0, out, in);
  const int64_t row_bytes = DTypeRowBytes(m.dtype, in);
  std::vector<float> row(static_cast<size_t>(in));
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) row[i] = value(o, i);
    kernels::reference::QuantizeRow(DType::kQ8_0, row.data(), m.bytes.data() + o * row_bytes, in);
  }
  return m;
}

// Rows of w = s(o, i0) * (q(o, i) - z(o, i0)) as Q8_0, q and z in [0, 256]:
// a block whose q - z all fit a signed byte keeps them with d = s, exactly;
// any other block is requantized from its values, within half a step.
template <typename QFn, typename ScaleFn, typename ZeroFn>
RepackedMatrix PackQ8_0WithZeroPoints(int64_t out, int64_t in, const QFn& q, const ScaleFn& scale_bits,
                                      const ZeroFn& zero) {
  RepackedMatrix m = Allocate(DType::kQ8_0, out, in);
  const int64_t blocks = in / kQuantBlock;
  float values[kQuantBlock];
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t i0 = b * kQuantBlock;
      auto* block = reinterpret_cast<BlockQ8_0*>(m.bytes.data()) + o * blocks + b;
      const int z = static_cast<int>(zero(o, i0));
      bool fits = true;
      for (int j = 0; j < kQuantBlock && fits; ++j) {
        const int v = static_cast<int>(q(o, i0 + j)) - z;
        fits = v >= -128 && v <= 127;
      }
      if (fits) {
        block->d = scale_bits(o, i0);
        for (int j = 0; j < kQuantBlock; ++j) block->qs[j] = static_cast<int8_t>(static_cast<int>(q(o, i0 + j)) - z);
        continue;
      }
      const float s = F16ToF32(scale_bits(o, i0));
      for (int j = 0; j < kQuantBlock; ++j) values[j] = static_cast<float>(static_cast<int>(q(o, i0 + j)) - z) * s;
      kernels::reference::QuantizeRow(DType::kQ8_0, values, block, kQuantBlock);
    }
  }
  return m;
}

// GPTQ's g_idx names each input channel's group. Act-order checkpoints hold
// a group's channels scattered: the repacked matrix takes its columns in
// group order (`order`, a stable sort of g_idx; left empty when that is the
// identity), so every 32-element block lies in one group, and MatMul
// gathers its input into the same order.
StatusOr<std::vector<int32_t>> GptqGroups(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& p,
                                          int64_t in, int64_t group, int64_t groups, std::vector<int32_t>& order) {
  const auto* stored = Get(ckpt, p + ".g_idx");
  if (stored != nullptr && (stored->dtype != safetensors::Dtype::kI32 || stored->shape != std::vector<int64_t>{in})) {
    return InvalidArgumentError(fmt::format("{}.g_idx must be I32 [{}]", p, in));
  }
  std::vector<int32_t> g_idx(static_cast<size_t>(in));
  for (int64_t i = 0; i < in; ++i) {
    g_idx[i] = stored != nullptr ? At<int32_t>(*stored, i) : static_cast<int32_t>(i / group);
    if (g_idx[i] < 0 || g_idx[i] >= groups) {
      return InvalidArgumentError(fmt::format("{}.g_idx[{}] = {} is not one of its {} groups", p, i, g_idx[i], groups));
    }
  }
  order.resize(static_cast<size_t>(in));
  for (int64_t i = 0; i < in; ++i) order[i] = static_cast<int32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return g_idx[a] < g_idx[b]; });
  for (int64_t j = 0; group % kQuantBlock == 0 && j < in; ++j) {
    if (g_idx[order[j]] != g_idx[order[j - j % kQuantBlock]]) {
      return UnimplementedError(fmt::format("{}.g_idx: group {} does not have a multiple of 32 channels", p, g_idx[order[j]]));
    }
  }
  bool identity = true;
  for (int64_t j = 0; j < in && identity; ++j) identity = order[j] == j;
  if (identity) order.clear();
  return g_idx;
}

StatusOr<RepackedMatrix> RepackGptq(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& p,
                                    const QuantScheme& s) {
  const auto* qweight = Get(ckpt, p + ".qweight");
  if (qweight == nullptr || qweight->shape.size() != 2 || qweight->dtype != safetensors::Dtype::kI32) {
    return InvalidArgumentError(p + ".qweight is missing or not 2-D I32");
  }
  const int64_t out = qweight->shape[1];
  const int64_t in = qweight->shape[0] * 32 / s.bits;
  const int64_t group = s.group_size == 0 ? in : s.group_size;
  // The last group may be short (576 inputs in groups of 128: four and a
  // half), as GPTQ quantizers allow; each 32-element block still lies in one.
  if (in % kQuantBlock != 0 || out * s.bits % 32 != 0) {
    return InvalidArgumentError(fmt::format("{}: {} inputs and {} outputs are not whole blocks of 32", p, in, out));
  }
  const int64_t groups = (in + group - 1) / group;
  const int64_t zero_words = out * s.bits / 32;
  PAGODA_ASSIGN_OR_RETURN(const auto* scales, Need(ckpt, p + ".scales", safetensors::Dtype::kF16, {groups, out}));
  PAGODA_ASSIGN_OR_RETURN(const auto* qzeros, Need(ckpt, p + ".qzeros", safetensors::Dtype::kI32, {groups, zero_words}));
  std::vector<int32_t> order;
  PAGODA_ASSIGN_OR_RETURN(const std::vector<int32_t> g_idx, GptqGroups(ckpt, p, in, group, groups, order));
  // Groups that do not fill whole 32-element blocks (16, 48, ...) share
  // blocks, which one scale cannot hold: those layers are requantized, in
  // the channels' own order.
  const bool requantize = group % kQuantBlock != 0;
  if (requantize) order.clear();
  // Column j of the repacked matrix is input channel channel(j).
  const auto channel = [&](int64_t j) { return order.empty() ? j : static_cast<int64_t>(order[j]); };
  const auto q = [&](int64_t o, int64_t j) {
    const int64_t per_word = 32 / s.bits;
    const int64_t i = channel(j);
    const uint32_t word = static_cast<uint32_t>(At<int32_t>(*qweight, (i / per_word) * out + o));
    return (word >> ((i % per_word) * s.bits)) & ((1u << s.bits) - 1);
  };
  // v1 checkpoints store each zero point minus one (read back without wrapping).
  const auto zero_of_group = [&](int64_t o, int64_t g) {
    return Field(*qzeros, g * zero_words, o, s.bits) + (s.gptq_v1 ? 1u : 0u);
  };
  const auto zero = [&](int64_t o, int64_t j) { return zero_of_group(o, g_idx[channel(j)]); };
  const auto scale = [&](int64_t o, int64_t j) { return At<f16_bits>(*scales, g_idx[channel(j)] * out + o); };
  RepackedMatrix m;
  if (requantize) {
    m = RequantizeQ8_0(out, in, [&](int64_t o, int64_t j) {
      return (static_cast<float>(q(o, j)) - static_cast<float>(zero(o, j))) * F16ToF32(scale(o, j));
    });
  } else if (s.symmetric) {
    // Every zero point is the middle, 2^(bits-1): Q4_0 and Q8_0 hold the values exactly.
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t o = 0; o < out; ++o) {
        if (zero_of_group(o, g) != 1u << (s.bits - 1)) {
          return UnimplementedError(fmt::format("{}.qzeros: zero point of group {} row {} is not the middle, "
                                                "although quantization_config says sym", p, g, o));
        }
      }
    }
    m = Pack(s.bits, out, in, q, scale);
  } else if (s.bits == 4) {
    m = PackQ4_1(out, in, q, [&](int64_t o, int64_t j) { return F16ToF32(scale(o, j)); }, zero);
  } else {
    m = PackQ8_0WithZeroPoints(out, in, q, scale, zero);
  }
  m.input_order = std::move(order);
  return m;
}

StatusOr<RepackedMatrix> RepackCompressed(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& p,
                                          const QuantScheme& s) {
  const bool packed = s.format == QuantFormat::kCtPacked;
  const auto* weight = Get(ckpt, p + (packed ? ".weight_packed" : ".weight"));
  if (weight == nullptr || weight->shape.size() != 2) return InvalidArgumentError(p + ": quantized weight is missing or not 2-D");
  const int64_t out = weight->shape[0];
  const int64_t in = packed ? weight->shape[1] * 32 / s.bits : weight->shape[1];
  if (packed) {
    PAGODA_ASSIGN_OR_RETURN(const auto* shape, Need(ckpt, p + ".weight_shape", safetensors::Dtype::kI64, {2}));
    if (At<int64_t>(*shape, 0) != out || At<int64_t>(*shape, 1) != in) {
      return InvalidArgumentError(p + ".weight_shape does not match weight_packed");
    }
  } else if (weight->dtype != safetensors::Dtype::kI8) {
    return InvalidArgumentError(p + ".weight of an int-quantized layer must be I8");
  }
  const int64_t group = s.group_size == 0 ? in : s.group_size;
  if (in % group != 0 || in % kQuantBlock != 0) return InvalidArgumentError(fmt::format("{}: {} inputs do not fill groups of {}", p, in, group));
  const auto* scales = Get(ckpt, p + ".weight_scale");
  if (scales == nullptr || scales->shape != std::vector<int64_t>{out, in / group} ||
      (scales->dtype != safetensors::Dtype::kBF16 && scales->dtype != safetensors::Dtype::kF16 &&
       scales->dtype != safetensors::Dtype::kF32)) {
    return InvalidArgumentError(p + ".weight_scale is missing or not [out, groups] of floats");
  }
  // F16 scales round-trip exactly; bf16 and f32 ones round to F16.
  const auto scale = [&](int64_t o, int64_t i0) { return F32ToF16(FloatAt(*scales, o * (in / group) + i0 / group)); };
  const uint32_t offset = 1u << (s.bits - 1);
  if (packed) {
    // Stored as q + 2^(bits-1), the value Q4_0's nibbles and Q8_0's + 128 hold.
    const auto q = [&](int64_t o, int64_t i) { return Field(*weight, o * (in * s.bits / 32), i, s.bits); };
    return Pack(s.bits, out, in, q, scale);
  }
  const auto q = [&](int64_t o, int64_t i) { return static_cast<uint32_t>(At<int8_t>(*weight, o * in + i) + static_cast<int>(offset)); };
  return Pack(8, out, in, q, scale);
}

// AWQ's GEMM layout packs 8 output columns per word along the output
// dimension, field k holding column 8j + kAwqOrder[k].
constexpr int kAwqOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};

uint32_t AwqField(const safetensors::SafetensorsTensor& t, int64_t row, int64_t out, int64_t column) {
  const uint32_t word = static_cast<uint32_t>(At<int32_t>(t, row * (out / 8) + column / 8));
  int k = 0;
  while (kAwqOrder[k] != column % 8) ++k;
  return (word >> (4 * k)) & 15u;
}

StatusOr<RepackedMatrix> RepackAwq(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& p,
                                   const QuantScheme& s) {
  const auto* qweight = Get(ckpt, p + ".qweight");
  if (qweight == nullptr || qweight->shape.size() != 2 || qweight->dtype != safetensors::Dtype::kI32) {
    return InvalidArgumentError(p + ".qweight is missing or not 2-D I32");
  }
  const int64_t in = qweight->shape[0];
  const int64_t out = qweight->shape[1] * 8;
  if (in % s.group_size != 0) return InvalidArgumentError(fmt::format("{}: {} inputs do not fill groups of {}", p, in, s.group_size));
  const int64_t groups = in / s.group_size;
  PAGODA_ASSIGN_OR_RETURN(const auto* qzeros, Need(ckpt, p + ".qzeros", safetensors::Dtype::kI32, {groups, out / 8}));
  const auto* scales = Get(ckpt, p + ".scales");
  if (scales == nullptr || scales->shape != std::vector<int64_t>{groups, out} ||
      (scales->dtype != safetensors::Dtype::kF16 && scales->dtype != safetensors::Dtype::kBF16)) {
    return InvalidArgumentError(p + ".scales is missing or not [groups, out] of F16/BF16");
  }
  const auto q = [&](int64_t o, int64_t i) { return AwqField(*qweight, i, out, o); };
  const auto scale = [&](int64_t o, int64_t i) { return FloatAt(*scales, i / s.group_size * out + o); };
  const auto zero = [&](int64_t o, int64_t i) { return AwqField(*qzeros, i / s.group_size, out, o); };
  return PackQ4_1(out, in, q, scale, zero);
}

// e4m3fn: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities,
// 0x7F and 0xFF are NaN. Powers of two by repeated halving and doubling,
// exact in float, so the table is built at compile time.
constexpr float E4m3Value(uint8_t v) {
  const int exponent = (v >> 3) & 15;
  const int mantissa = v & 7;
  if (exponent == 15 && mantissa == 7) return std::numeric_limits<float>::quiet_NaN();
  float value = exponent == 0 ? static_cast<float>(mantissa) / 8.0f : 1.0f + static_cast<float>(mantissa) / 8.0f;
  for (int e = exponent == 0 ? 1 : exponent; e < 7; ++e) value /= 2.0f;  // subnormals share exponent 1's scale
  for (int e = 7; e < exponent; ++e) value *= 2.0f;
  return (v & 0x80) ? -value : value;
}

constexpr std::array<float, 256> kE4m3Values = [] {
  std::array<float, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = E4m3Value(static_cast<uint8_t>(c));
  return t;
}();

inline float E4m3ToF32(uint8_t v) { return kE4m3Values[v]; }

// Round-to-nearest-even e4m3fn of |a| <= 448. Codes are monotone in the
// value and evenly spaced within each binade (subnormals: steps of 2^-9),
// so a mantissa that rounds up carries into the next exponent.
uint8_t E4m3FromF32(float a) {
  const uint8_t sign = std::signbit(a) ? 0x80 : 0;
  a = std::fabs(a);
  if (a < 0x1p-6f) return sign | static_cast<uint8_t>(std::nearbyint(a * 0x1p9f));  // exact scaling
  uint32_t bits;
  std::memcpy(&bits, &a, sizeof(bits));
  // Binade 2^e with e >= -6: code (e + 7) * 8 + the top 3 of the 23
  // mantissa bits, rounded to nearest even on the 20 below.
  const uint32_t e = (bits >> 23) - 127 + 7;
  const uint32_t top = (bits >> 20) & 7;
  const uint32_t rest = bits & 0xFFFFF;
  const uint32_t up = rest > 0x80000 || (rest == 0x80000 && (top & 1)) ? 1 : 0;
  return sign | static_cast<uint8_t>(e * 8 + top + up);
}

StatusOr<RepackedMatrix> RepackFp8(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& p,
                                   const QuantScheme& s) {
  const auto* weight = Get(ckpt, p + ".weight");
  if (weight == nullptr || weight->shape.size() != 2 || weight->dtype != safetensors::Dtype::kF8E4M3) {
    return InvalidArgumentError(p + ".weight of an FP8 layer must be 2-D F8_E4M3");
  }
  const int64_t out = weight->shape[0];
  const int64_t in = weight->shape[1];
  if (in % kQuantBlock != 0) return InvalidArgumentError(fmt::format("{}: {} inputs are not whole blocks of 32", p, in));
  const std::string scale_name = p + QuantMarker(s);
  const auto* scales = Get(ckpt, scale_name);
  if (scales == nullptr) return InvalidArgumentError(scale_name + " is missing");
  for (int64_t k = 0; k < scales->num_elements(); ++k) {
    if (!std::isfinite(FloatAt(*scales, k))) return InvalidArgumentError(scale_name + " is not a finite float");
  }
  if (s.static_activations) {
    const auto* input_scale = Get(ckpt, p + ".input_scale");
    if (input_scale == nullptr || input_scale->num_elements() != 1 || !(FloatAt(*input_scale, 0) > 0.0f)) {
      return InvalidArgumentError(p + ".input_scale must be one positive float (static activation scheme)");
    }
  }
  if (s.block_rows > 0) {
    // One scale per block_rows x block_cols block, the last ones partial.
    const int64_t row_blocks = (out + s.block_rows - 1) / s.block_rows;
    const int64_t col_blocks = (in + s.block_cols - 1) / s.block_cols;
    if (scales->shape != std::vector<int64_t>{row_blocks, col_blocks}) {
      return InvalidArgumentError(fmt::format("{} is [{}], expected [{}, {}] for blocks of {}x{}", scale_name,
                                              fmt::join(scales->shape, ", "), row_blocks, col_blocks, s.block_rows,
                                              s.block_cols));
    }
    return RequantizeQ8_0(out, in, [&](int64_t o, int64_t i) {
      return E4m3ToF32(weight->data[o * in + i]) * FloatAt(*scales, (o / s.block_rows) * col_blocks + i / s.block_cols);
    });
  }
  const bool per_tensor = scales->num_elements() == 1;
  if (!per_tensor && scales->shape != std::vector<int64_t>{out, 1}) {
    return InvalidArgumentError(scale_name + " is neither per tensor nor [out, 1]");
  }
  std::vector<float> row_scale(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) row_scale[o] = FloatAt(*scales, per_tensor ? 0 : o);
  return RequantizeQ8_0(out, in, [&](int64_t o, int64_t i) { return E4m3ToF32(weight->data[o * in + i]) * row_scale[o]; });
}

}  // namespace

RepackedMatrix QuantizeFp8AtLoad(const float* w, int64_t out, int64_t in) {
  float max_abs = 0.0f;
  for (int64_t k = 0; k < out * in; ++k) max_abs = std::max(max_abs, std::fabs(w[k]));
  const float scale = max_abs / 448.0f;
  const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
  return RequantizeQ8_0(out, in, [&](int64_t o, int64_t i) {
    const float v = std::clamp(w[o * in + i] * inverse, -448.0f, 448.0f);
    return E4m3ToF32(E4m3FromF32(v)) * scale;
  });
}

std::string RepackedLayout(const QuantScheme& s) {
  switch (s.format) {
    case QuantFormat::kAwq: return "Q4_1";
    case QuantFormat::kFp8:
      return s.at_load ? "Q8_0" : s.block_rows > 0 ? "Q8_0 (requantized from block-wise e4m3)" : "Q8_0 (requantized from e4m3)";
    case QuantFormat::kGptq:
      if (s.group_size % kQuantBlock != 0) return "Q8_0 (requantized: groups that do not fill 32-element blocks)";
      if (!s.symmetric) return s.bits == 4 ? "Q4_1" : "Q8_0 (blocks whose q - z overflow a byte requantized)";
      break;
    case QuantFormat::kCtPacked:
    case QuantFormat::kCtInt: break;
  }
  return s.bits == 4 ? "Q4_0" : "Q8_0";
}

StatusOr<QuantScheme> ReadQuantScheme(const json& quantization_config) {
  const ConfigReader r(quantization_config, "config.json quantization_config");
  PAGODA_ASSIGN_OR_RETURN(const std::string method, r.String("quant_method"));
  if (method == "gptq") return ReadGptq(r, quantization_config);
  if (method == "compressed-tensors") return ReadCompressedTensors(r, quantization_config);
  if (method == "awq") return ReadAwq(r, quantization_config);
  if (method == "fp8") return ReadFp8(r, quantization_config);
  return UnimplementedError(fmt::format("{}: quant_method '{}' is not supported yet (supported: awq, gptq, fp8, compressed-tensors)",
                                        r.where(), method));
}

std::string QuantMarker(const QuantScheme& s) {
  switch (s.format) {
    case QuantFormat::kGptq:
    case QuantFormat::kAwq: return ".qweight";
    case QuantFormat::kCtPacked: return ".weight_packed";
    case QuantFormat::kCtInt: return ".weight_scale";
    case QuantFormat::kFp8: return s.block_rows > 0 && s.method == "fp8" ? ".weight_scale_inv" : ".weight_scale";
  }
  return ".weight_scale";
}

std::vector<std::string> QuantizedComponents(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& prefix,
                                             const QuantScheme& s) {
  std::vector<std::string> names;
  switch (s.format) {
    case QuantFormat::kGptq: names = {".qweight", ".qzeros", ".scales", ".g_idx"}; break;
    case QuantFormat::kAwq: names = {".qweight", ".qzeros", ".scales"}; break;
    case QuantFormat::kCtPacked: names = {".weight_packed", ".weight_scale", ".weight_shape"}; break;
    case QuantFormat::kCtInt: names = {".weight", ".weight_scale"}; break;
    case QuantFormat::kFp8: names = {".weight", QuantMarker(s), ".input_scale"}; break;
  }
  if (ckpt.FindTensor(prefix + QuantMarker(s)) == nullptr) return {};
  std::vector<std::string> present;
  for (const std::string& n : names) {
    if (ckpt.FindTensor(prefix + n) != nullptr) present.push_back(prefix + n);
  }
  return present;
}

StatusOr<RepackedMatrix> RepackLinear(const safetensors::SafetensorsCheckpoint& ckpt, const std::string& prefix,
                                      const QuantScheme& s) {
  switch (s.format) {
    case QuantFormat::kGptq: return RepackGptq(ckpt, prefix, s);
    case QuantFormat::kAwq: return RepackAwq(ckpt, prefix, s);
    case QuantFormat::kFp8: return RepackFp8(ckpt, prefix, s);
    default: return RepackCompressed(ckpt, prefix, s);
  }
}

}  // namespace pagoda::hf
