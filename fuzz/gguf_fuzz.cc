// libFuzzer target for the GGUF loader: any input must either fail with a
// Status or give a file whose every value, getter and tensor is safe to use.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"

namespace {

using pagoda::gguf::GgufFile;
using pagoda::gguf::TensorInfo;

void ExerciseGetters(const GgufFile& file) {
  for (const auto& [key, value] : file.metadata()) {
    (void)file.GetString(key);
    (void)file.GetUint(key);
    (void)file.GetInt(key);
    (void)file.GetFloat(key);
    (void)file.GetBool(key);
    (void)file.GetStringArray(key);
    (void)file.GetIntArray(key);
    (void)file.GetFloatArray(key);
    if (file.Find(key) != &value) __builtin_trap();
  }
}

void ExerciseTensors(const GgufFile& file) {
  uint8_t sum = 0;
  for (const TensorInfo& t : file.tensors()) {
    if (file.FindTensor(t.name) != &t) __builtin_trap();
    if (t.num_elements() <= 0 || t.nbytes == 0) __builtin_trap();
    // ASan checks every byte lies inside the input copy.
    for (uint64_t i = 0; i < t.nbytes; ++i) sum += t.data[i];
  }
  volatile uint8_t sink = sum;
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = GgufFile::FromBytes(std::vector<uint8_t>(data, data + size));
  if (!file.ok()) return 0;
  ExerciseGetters(**file);
  ExerciseTensors(**file);
  std::ostringstream summary;
  PrintGgufSummary(**file, summary);
  return 0;
}
