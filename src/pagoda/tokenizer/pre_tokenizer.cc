#include "pagoda/tokenizer/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/tokenizer/unicode_classes.h"

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

// Qwen2's: Llama 3's with single digits.
constexpr const char* kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^" WS "\\p{L}\\p{N}]+[\\r\\n]*|[" WS
    "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+";

// Tekken's and GPT-4o's: words split at case changes (an upper-case run
// joins the lower-case run after it), GPT-4o's with contractions attached.
#define UPPER "[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]"
#define LOWER "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]"
#define CONTRACTIONS "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
constexpr const char* kTekkenPattern =
    "[^\\r\\n\\p{L}\\p{N}]?" UPPER "*" LOWER "+|[^\\r\\n\\p{L}\\p{N}]?" UPPER "+" LOWER "*|\\p{N}| ?[^" WS
    "\\p{L}\\p{N}]+[\\r\\n/]*|[" WS "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+";
constexpr const char* kGpt4oPattern =
    "[^\\r\\n\\p{L}\\p{N}]?" UPPER "*" LOWER "+" CONTRACTIONS "?|[^\\r\\n\\p{L}\\p{N}]?" UPPER "+" LOWER "*" CONTRACTIONS
    "?|\\p{N}{1,3}| ?[^" WS "\\p{L}\\p{N}]+[\\r\\n/]*|[" WS "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+";
#undef UPPER
#undef LOWER
#undef CONTRACTIONS

// DeepSeek's splits, with the exact code points of llama.cpp's llama-vocab.cpp.
constexpr const char* kDeepSeekLlmPatterns[] = {
    "[\\r\\n]",
    "[" WS "]?[A-Za-z\\x{B5}\\x{C0}-\\x{D6}\\x{D8}-\\x{F6}\\x{F8}-\\x{1BA}\\x{1BC}-\\x{1BF}"
    "\\x{1C4}-\\x{293}\\x{295}-\\x{2AF}\\x{370}-\\x{373}\\x{376}\\x{377}\\x{37B}-\\x{37D}\\x{37F}"
    "\\x{386}\\x{388}-\\x{38A}\\x{38C}\\x{38E}-\\x{3A1}\\x{3A3}-\\x{3F5}\\x{3F7}-\\x{481}\\x{48A}"
    "-\\x{52F}\\x{531}-\\x{556}\\x{10A0}-\\x{10C5}\\x{13A0}-\\x{13F5}\\x{13F8}-\\x{13FD}\\x{1C90}"
    "-\\x{1CBA}\\x{1CBD}-\\x{1CBF}\\x{1D00}-\\x{1D2B}\\x{1D6B}-\\x{1D77}\\x{1D79}-\\x{1D9A}"
    "\\x{1E00}-\\x{1F15}\\x{1F18}-\\x{1F1D}\\x{1F20}-\\x{1F45}\\x{1F48}-\\x{1F4D}\\x{1F50}-"
    "\\x{1F57}\\x{1F59}\\x{1F5B}\\x{1F5D}\\x{1F5F}-\\x{1F7D}\\x{1F80}-\\x{1FB4}\\x{1FB6}-"
    "\\x{1FBC}\\x{1FBE}\\x{1FC2}-\\x{1FC4}\\x{1FC6}-\\x{1FCC}\\x{1FD0}-\\x{1FD3}\\x{1FD6}-"
    "\\x{1FDB}\\x{1FE0}-\\x{1FEC}\\x{1FF2}-\\x{1FF4}\\x{1FF6}-\\x{1FFC}\\x{2102}\\x{2107}"
    "\\x{210A}-\\x{2113}\\x{2115}\\x{2119}-\\x{211D}\\x{2124}\\x{2126}\\x{2128}\\x{212A}-"
    "\\x{212D}\\x{212F}-\\x{2134}\\x{2139}\\x{213C}-\\x{213F}\\x{2145}-\\x{2149}\\x{214E}"
    "\\x{2183}\\x{2184}\\x{2C00}-\\x{2C7B}\\x{2C7E}-\\x{2CE4}\\x{2CEB}-\\x{2CEE}\\x{2CF2}"
    "\\x{2CF3}\\x{A640}-\\x{A66D}\\x{A680}-\\x{A69B}\\x{A722}-\\x{A76F}\\x{A771}-\\x{A787}"
    "\\x{A78B}-\\x{A78E}\\x{AB70}-\\x{ABBF}\\x{FB00}-\\x{FB06}\\x{FB13}-\\x{FB17}\\x{FF21}-"
    "\\x{FF3A}\\x{FF41}-\\x{FF5A}\\x{10400}-\\x{1044F}\\x{104B0}-\\x{104D3}\\x{104D8}-\\x{104FB}"
    "\\x{10C80}-\\x{10CB2}\\x{10CC0}-\\x{10CF2}\\x{118A0}-\\x{118DF}\\x{1E900}-\\x{1E943}]+",
    "[" WS "]?[!-/:-~\\x{FF01}-\\x{FF0F}\\x{FF1A}-\\x{FF5E}\\x{2018}-\\x{201F}\\x{3000}-\\x{3002}]+",
    "[" WS "]+$",
    "[\\x{4E00}-\\x{9FA5}\\x{800}-\\x{4E00}\\x{AC00}-\\x{D7FF}]+",
    "\\p{N}+",
};

// DeepSeek V3's (and R1's) splits, as in llama.cpp: numbers in threes, runs of
// CJK ideographs and kana, then a word regex whose \p{P} and \p{S} keep
// punctuation and symbols apart from letters.
constexpr const char* kDeepSeekV3Patterns[] = {
    "\\p{N}{1,3}",
    "[\\x{4E00}-\\x{9FA5}\\x{3040}-\\x{309F}\\x{30A0}-\\x{30FF}]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|["
    WS "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+",
};

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
      {"qwen2", {kQwen2Pattern}, false},
      {"deepseek-r1-qwen", {kQwen2Pattern}, false},
      {"stablelm2", {kQwen2Pattern}, false},
      {"tekken", {kTekkenPattern}, true},
      {"gpt-4o", {kGpt4oPattern}, true},
      {"llama4", {kGpt4oPattern}, true},
      {"deepseek-llm", {std::begin(kDeepSeekLlmPatterns), std::end(kDeepSeekLlmPatterns)}, false},
      {"deepseek-v3", {std::begin(kDeepSeekV3Patterns), std::end(kDeepSeekV3Patterns)}, false},
  };
  return *defs;
}

}  // namespace

class PreTokenizer::Regex {
 public:
  static StatusOr<std::unique_ptr<Regex>> Compile(std::string_view pattern) {
    int error = 0;
    PCRE2_SIZE error_offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
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
      // Every family's categories follow ICU, as HF's follow Oniguruma's newer tables.
      PAGODA_ASSIGN_OR_RETURN(const std::string widened, WithUnicode16GeneralCategories(pattern));
      PAGODA_ASSIGN_OR_RETURN(auto regex, Regex::Compile(widened));
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
