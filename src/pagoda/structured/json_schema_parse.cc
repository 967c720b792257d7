#include "pagoda/structured/json_schema_parse.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pagoda::structured {
namespace {

// The vector under an ordered_json object: appending to it directly skips
// the linear duplicate search; the per-object index replaces it.
using ObjectEntries = Json::object_t::Container;

// nlohmann's SAX interface: the parser calls these in document order.
class Builder {
 public:
  explicit Builder(int max_depth) : max_depth_(max_depth) {}

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
  bool key(Json::string_t& k) {
    Frame& frame = frames_.back();
    ObjectEntries& entries = frame.value->get_ref<Json::object_t&>();
    const auto [it, inserted] = frame.keys.try_emplace(k, entries.size());
    if (inserted) entries.emplace_back(std::move(k), nullptr);
    slot_ = &entries[it->second].second;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    return Fail(std::string("not valid JSON: ") + e.what());
  }

  Json TakeRoot() { return std::move(root_); }
  const std::optional<std::string>& error() const { return error_; }

 private:
  struct Frame {
    Json* value;
    std::unordered_map<std::string, size_t> keys;  // objects only: key -> entry
  };

  // Where the next value goes: the root, an array's end, or a key's slot.
  Json* Slot() {
    if (frames_.empty()) return &root_;
    Json* parent = frames_.back().value;
    if (parent->is_array()) {
      parent->push_back(nullptr);
      return &parent->back();
    }
    return slot_;
  }
  bool Put(Json v) {
    *Slot() = std::move(v);
    return true;
  }
  bool Open(Json container) {
    if (static_cast<int>(frames_.size()) >= max_depth_) {
      return Fail("the schema nests over " + std::to_string(max_depth_) + " deep");
    }
    Json* slot = Slot();
    *slot = std::move(container);
    frames_.push_back({slot, {}});
    return true;
  }
  bool Close() {
    frames_.pop_back();
    return true;
  }
  bool Fail(std::string message) {
    if (!error_) error_ = std::move(message);
    return false;
  }

  int max_depth_;
  Json root_;
  std::vector<Frame> frames_;
  Json* slot_ = nullptr;
  std::optional<std::string> error_;
};

}  // namespace

StatusOr<Json> ParseSchemaText(std::string_view text, int max_depth) {
  Builder builder(max_depth);
  const bool ok = Json::sax_parse(text, &builder);
  if (!ok || builder.error()) {
    return InvalidArgumentError("JSON schema: " + builder.error().value_or(std::string("not valid JSON")));
  }
  return builder.TakeRoot();
}

}  // namespace pagoda::structured
