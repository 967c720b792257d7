#include "pagoda/server/stream_options.h"

namespace pagoda::server {

std::optional<StreamOptions> ReadStreamOptions(FieldReader& r, bool stream) {
  const nlohmann::json& v = r.Raw("stream_options");
  if (v.is_null()) return StreamOptions{};
  if (!stream) {
    r.Fail("stream_options", "'stream_options' is only allowed when 'stream' is true");
    return std::nullopt;
  }
  FieldReader options(v);
  StreamOptions out{options.Bool("include_usage").value_or(false),
                    options.Bool("continuous_usage_stats").value_or(false)};
  if (!options.ok()) {
    r.Fail("stream_options", "stream_options: " + options.error()->message);
    return std::nullopt;
  }
  return out;
}

}  // namespace pagoda::server
