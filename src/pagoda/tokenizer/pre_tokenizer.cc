#include "pagoda/tokenizer/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/base/check.h"

namespace pagoda::tokenizer {
namespace {

// The reference tokenizers run these regexes with Oniguruma, whose \s is the
// Unicode White_Space property. PCRE2's \s is not quite that set (10.42 also
// matches U+180E), so the patterns spell whitespace out: WS goes inside a class.
#define WS "\\t\\n\\x0B\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"

constexpr const char* kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" WS "\\p{L}\\p{N}]+|[" WS "]+(?![^" WS "])|[" WS "]+";

constexpr const char* kLlama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^" WS "\\p{L}\\p{N}]+[\\r\\n]*|[" WS
    "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+";

#undef WS

constexpr const char* kEachNumberPattern = "\\p{N}";

struct PreTokenizerDef {
  std::string_view name;
  std::vector<const char*> patterns;
  bool ignore_merges;
};

const std::vector<PreTokenizerDef>& Definitions() {
  static const auto* defs = new std::vector<PreTokenizerDef>{
      {"gpt2", {kGpt2Pattern}, false},
      {"smollm", {kEachNumberPattern, kGpt2Pattern}, false},
      {"llama-bpe", {kLlama3Pattern}, true},
      {"llama3", {kLlama3Pattern}, true},
  };
  return *defs;
}

}  // namespace

class PreTokenizer::Regex {
 public:
  static StatusOr<std::unique_ptr<Regex>> Compile(const char* pattern) {
    int error = 0;
    PCRE2_SIZE error_offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                                     PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error,
                                     &error_offset, nullptr);
    if (code == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error, message, sizeof(message));
      return InternalError("pre-tokenizer regex does not compile at offset " +
                           std::to_string(error_offset) + ": " + reinterpret_cast<char*>(message));
    }
    // Without JIT (a PCRE2 built without it) matching still works, slower.
    (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    // The patterns backtrack at most once over each character, so PCRE2's
    // default match limit (10M steps) is only hit by long inputs, such as
    // 12 MB of spaces under Llama 3's regex: lift it rather than fail.
    pcre2_match_context* context = pcre2_match_context_create(nullptr);
    PAGODA_CHECK(context != nullptr);
    pcre2_set_match_limit(context, UINT32_MAX);
    pcre2_set_depth_limit(context, UINT32_MAX);
    return std::unique_ptr<Regex>(new Regex(code, context));
  }

  ~Regex() {
    pcre2_match_context_free(context_);
    pcre2_code_free(code_);
  }

  // Appends matches and the gaps between them.
  void Split(std::string_view text, pcre2_match_data* match, std::vector<std::string_view>* out) const {
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t gap_start = 0;
    size_t offset = 0;
    while (offset < text.size()) {
      const int rc = pcre2_match(code_, subject, text.size(), offset, 0, match, context_);
      if (rc == PCRE2_ERROR_NOMATCH) break;
      // With the limits lifted (see Create) only a bug can make PCRE2 fail.
      PAGODA_CHECK_MSG(rc > 0, "pre-tokenizer regex match failed");
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
      const size_t begin = ovector[0];
      const size_t end = ovector[1];
      PAGODA_CHECK_MSG(end > begin, "pre-tokenizer regex matched the empty string");
      if (begin > gap_start) out->push_back(text.substr(gap_start, begin - gap_start));
      out->push_back(text.substr(begin, end - begin));
      gap_start = offset = end;
    }
    if (gap_start < text.size()) out->push_back(text.substr(gap_start));
  }

 private:
  Regex(pcre2_code* code, pcre2_match_context* context) : code_(code), context_(context) {}
  pcre2_code* code_;
  pcre2_match_context* context_;  // read-only once set up, so shared by all callers
};

StatusOr<std::unique_ptr<PreTokenizer>> PreTokenizer::Create(std::string_view name) {
  for (const PreTokenizerDef& def : Definitions()) {
    if (def.name != name) continue;
    std::vector<std::unique_ptr<Regex>> regexes;
    for (const char* pattern : def.patterns) {
      PAGODA_ASSIGN_OR_RETURN(auto regex, Regex::Compile(pattern));
      regexes.push_back(std::move(regex));
    }
    return std::unique_ptr<PreTokenizer>(new PreTokenizer(std::move(regexes), def.ignore_merges));
  }
  std::string known;
  for (const PreTokenizerDef& def : Definitions()) known += (known.empty() ? "" : ", ") + std::string(def.name);
  return UnimplementedError("unsupported pre-tokenizer \"" + std::string(name) + "\" (supported: " + known + ")");
}

PreTokenizer::PreTokenizer(std::vector<std::unique_ptr<Regex>> regexes, bool ignore_merges)
    : regexes_(std::move(regexes)), ignore_merges_(ignore_merges) {}

PreTokenizer::~PreTokenizer() = default;

void PreTokenizer::Split(std::string_view text, std::vector<std::string_view>* pieces) const {
  if (text.empty()) return;
  // Match data is per call so that concurrent callers share nothing mutable.
  pcre2_match_data* match = pcre2_match_data_create(1, nullptr);
  PAGODA_CHECK(match != nullptr);
  std::vector<std::string_view> current{text};
  std::vector<std::string_view> next;
  for (size_t i = 0; i < regexes_.size(); ++i) {
    std::vector<std::string_view>* out = i + 1 == regexes_.size() ? pieces : &next;
    for (std::string_view piece : current) regexes_[i]->Split(piece, match, out);
    if (out == &next) {
      current.swap(next);
      next.clear();
    }
  }
  pcre2_match_data_free(match);
}

}  // namespace pagoda::tokenizer
