// A regex pattern as code points, each with its byte offset in the pattern,
// and the cursor that the regex parser moves over them. Errors name the
// offset, so that a refused request says where its pattern went wrong.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::structured {

class RegexScanner {
 public:
  // What Peek returns past the end: not a code point, so that a NUL in the
  // pattern is an ordinary character.
  static constexpr char32_t kEnd = 0xFFFFFFFF;

  // INVALID_ARGUMENT at the first byte that does not begin a well-formed
  // UTF-8 sequence (overlong forms and surrogates included).
  static StatusOr<RegexScanner> Decode(std::string_view pattern);

  bool AtEnd() const { return next_ == code_points_.size(); }
  // The code point `ahead` places after the cursor, or kEnd.
  char32_t Peek(size_t ahead = 0) const {
    return next_ + ahead < code_points_.size() ? code_points_[next_ + ahead] : kEnd;
  }
  char32_t Next() { return AtEnd() ? kEnd : code_points_[next_++]; }
  // Moves past `c` if it comes next.
  bool Consume(char32_t c) {
    if (Peek() != c) return false;
    ++next_;
    return true;
  }
  // The byte offset of the next code point (the pattern's size at the end).
  size_t offset() const { return offsets_[next_]; }

  // Where the cursor is, to come back to when a '{' turns out not to begin
  // a repeat count.
  size_t position() const { return next_; }
  void Rewind(size_t position) { next_ = position; }

  // The pattern's text from byte `begin` up to the cursor, to quote the
  // construct a message is about as it was written.
  std::string Spelling(size_t begin) const { return pattern_.substr(begin, offset() - begin); }

  // "regex: <construct> at offset N is not supported".
  static Status Unsupported(size_t offset, const std::string& construct);
  // "regex: <problem> at offset N".
  static Status Malformed(size_t offset, const std::string& problem);

 private:
  std::string pattern_;
  std::vector<char32_t> code_points_;
  std::vector<size_t> offsets_;  // one more than code_points_: the end
  size_t next_ = 0;
};

}  // namespace pagoda::structured
