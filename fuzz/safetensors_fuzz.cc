// libFuzzer target for the safetensors reader: any input must either fail
// with a Status or give a file whose every tensor is findable by name, has
// the byte size its dtype and shape need, and lies inside the input.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pagoda/formats/safetensors/safetensors_file.h"

namespace {

using pagoda::safetensors::DtypeSize;
using pagoda::safetensors::SafetensorsFile;
using pagoda::safetensors::SafetensorsTensor;

void ExerciseTensors(const SafetensorsFile& file) {
  uint8_t sum = 0;
  for (const SafetensorsTensor& t : file.tensors()) {
    if (file.FindTensor(t.name) != &t) __builtin_trap();
    if (t.num_elements() < 0) __builtin_trap();
    if (t.data.size() != static_cast<uint64_t>(t.num_elements()) * DtypeSize(t.dtype)) __builtin_trap();
    // ASan checks every byte lies inside the input copy.
    for (const uint8_t b : t.data) sum += b;
  }
  for (const auto& [key, value] : file.metadata()) sum += static_cast<uint8_t>(key.size() + value.size());
  volatile uint8_t sink = sum;
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = SafetensorsFile::FromBytes(std::vector<uint8_t>(data, data + size));
  if (file.ok()) ExerciseTensors(**file);
  return 0;
}
