// Bounds on one rendering, so that a hostile template (from --chat-template
// or a request) or hostile template arguments cannot exhaust memory or CPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pagoda::chat_template {

struct RenderLimits {
  // The rendered text, and any one string the template builds on the way.
  size_t max_output_bytes = size_t{32} << 20;
  // Work units: one per expression or statement evaluated and per list item
  // or dict entry built, and one per 16 bytes of text built. Real chat
  // templates use a few hundred units per message.
  uint64_t max_work = 10'000'000;
};

}  // namespace pagoda::chat_template
