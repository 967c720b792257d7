#include "pagoda/server/bounded_json.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pagoda::server {
namespace {

using Json = nlohmann::ordered_json;
// ordered_map is a std::vector of pairs; appending to the vector directly
// skips ordered_map's linear duplicate search, which the index replaces.
using ObjectEntries = Json::object_t::Container;

// nlohmann's SAX interface: the parser calls these in document order.
class BoundedBuilder {
 public:
  explicit BoundedBuilder(const JsonLimits& limits) : limits_(limits) {}

  bool null() { return Put(Json(nullptr)); }
  bool boolean(bool v) { return Put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return Put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return Put(Json(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t&) { return Put(Json(v)); }
  bool string(Json::string_t& v) { return Put(Json(std::move(v))); }
  bool binary(Json::binary_t&) { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return Open(Json::object()); }
  bool start_array(std::size_t) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(Json::string_t& k);
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    return Fail(fmt::format("the request body is not valid JSON: {}", e.what()));
  }

  Json TakeRoot() { return std::move(root_); }
  const std::optional<std::string>& error() const { return error_; }

 private:
  struct Frame {
    Json* value;
    std::unordered_map<std::string, size_t> key_index;  // objects only
  };

  bool Put(Json v);
  bool Open(Json container);
  bool Close() {
    frames_.pop_back();
    return true;
  }
  bool Fail(std::string message) {
    if (!error_) error_ = std::move(message);
    return false;
  }

  const JsonLimits& limits_;
  Json root_;
  std::vector<Frame> frames_;
  Json* slot_ = nullptr;  // where an object's next value goes, set by key()
  std::optional<std::string> error_;
};

bool BoundedBuilder::key(Json::string_t& k) {
  Frame& frame = frames_.back();
  ObjectEntries& entries = frame.value->get_ref<Json::object_t&>();
  auto [it, inserted] = frame.key_index.try_emplace(k, entries.size());
  if (!inserted) {
    slot_ = &entries[it->second].second;
    return true;
  }
  if (entries.size() >= limits_.max_object_keys) {
    return Fail(fmt::format("an object in the request has more than {} keys", limits_.max_object_keys));
  }
  entries.emplace_back(std::move(k), nullptr);
  slot_ = &entries.back().second;
  return true;
}

bool BoundedBuilder::Put(Json v) {
  if (frames_.empty()) {
    root_ = std::move(v);
    slot_ = &root_;
  } else if (frames_.back().value->is_array()) {
    Json::array_t& items = frames_.back().value->get_ref<Json::array_t&>();
    items.push_back(std::move(v));
    slot_ = &items.back();
  } else {
    *slot_ = std::move(v);
  }
  return true;
}

bool BoundedBuilder::Open(Json container) {
  if (static_cast<int>(frames_.size()) >= limits_.max_depth) {
    return Fail(fmt::format("the request nests deeper than {} levels", limits_.max_depth));
  }
  Put(std::move(container));
  // A container's parent gets no new element while it is open, so the
  // pointer stays valid until Close.
  frames_.push_back(Frame{slot_, {}});
  return true;
}

}  // namespace

StatusOr<nlohmann::ordered_json> ParseBoundedJson(std::string_view text, const JsonLimits& limits) {
  BoundedBuilder builder(limits);
  const bool ok = Json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok) return InvalidArgumentError(builder.error().value_or("the request body is not valid JSON"));
  return builder.TakeRoot();
}

}  // namespace pagoda::server
