// 'name' in single quotes: how errors name tensors, fields and files.
#pragma once

#include <string>
#include <string_view>

namespace pagoda::safetensors {

// Built by appends: GCC 12 warns (-Wrestrict, falsely) on "'" + std::string(s) + "'".
inline std::string Quoted(std::string_view s) {
  std::string quoted;
  quoted.reserve(s.size() + 2);
  quoted += '\'';
  quoted += s;
  quoted += '\'';
  return quoted;
}

}  // namespace pagoda::safetensors
