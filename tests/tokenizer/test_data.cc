#include "test_data.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/tokenizer/byte_level.h"
#include "pagoda/tokenizer/gguf_tokenizer_loader.h"
#include "pagoda/tokenizer/incremental_detokenizer.h"
#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer::testing {
namespace {

[[noreturn]] void Fatal(const std::string& message) {
  std::fprintf(stderr, "tokenizer test data: %s\n", message.c_str());
  std::abort();
}

struct Model {
  std::unique_ptr<TokenizerSpec> spec;
  std::unique_ptr<Tokenizer> tokenizer;
};

const Model& LoadModel() {
  static const Model* model = [] {
    auto* m = new Model;
    if (!std::filesystem::exists(PAGODA_TEST_MODEL)) return m;
    auto file = gguf::GgufFile::Open(PAGODA_TEST_MODEL);
    if (!file.ok()) Fatal(file.status().ToString());
    auto spec = TokenizerSpecFromGguf(**file);
    if (!spec.ok()) Fatal(spec.status().ToString());
    auto tokenizer = Tokenizer::Create(*spec);
    if (!tokenizer.ok()) Fatal(tokenizer.status().ToString());
    m->spec = std::make_unique<TokenizerSpec>(std::move(*spec));
    m->tokenizer = std::move(*tokenizer);
    return m;
  }();
  return *model;
}

}  // namespace

std::string FixturePath(const std::string& name) { return std::string(PAGODA_FIXTURES_DIR) + "/tokenizer/" + name; }

std::string SpmFixturePath(const std::string& name) {
  return std::string(PAGODA_FIXTURES_DIR) + "/tokenizer_spm/" + name;
}

std::string BpeFixturePath(const std::string& name) {
  return std::string(PAGODA_FIXTURES_DIR) + "/tokenizer_bpe/" + name;
}

std::vector<nlohmann::json> ReadJsonLines(const std::string& name) { return ReadJsonLinesAt(FixturePath(name)); }

std::vector<nlohmann::json> ReadJsonLinesAt(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fatal("cannot open " + path);
  std::vector<nlohmann::json> rows;
  std::string line;
  while (std::getline(in, line)) {
    try {
      rows.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      Fatal(path + " line " + std::to_string(rows.size() + 1) + ": " + e.what());
    }
  }
  return rows;
}

const std::vector<std::string>& Corpus() {
  static const auto* corpus = [] {
    auto* lines = new std::vector<std::string>;
    for (const nlohmann::json& row : ReadJsonLines("corpus.jsonl")) lines->push_back(row.get<std::string>());
    return lines;
  }();
  return *corpus;
}

const TokenizerSpec* ModelSpec() { return LoadModel().spec.get(); }
const Tokenizer* ModelTokenizer() { return LoadModel().tokenizer.get(); }

std::string Escape(const std::string& text, size_t max_bytes) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", c);
      out += buf;
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::string IdsToString(const std::vector<TokenId>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(ids[i]);
  }
  return out + "]";
}

std::string WithoutUncoveredBytes(const Tokenizer& tok, const std::string& text) {
  std::string out;
  for (char c : text) {
    if (tok.FindToken(BytesToVocabText(std::string(1, c)))) out.push_back(c);
  }
  return out;
}

TokenizerSpec ToySpec(const std::vector<std::string>& extra, const std::vector<std::string>& merges,
                      const std::string& pre) {
  TokenizerSpec spec;
  spec.pre = pre;
  for (int b = 0; b < 256; ++b) spec.tokens.push_back(BytesToVocabText(std::string(1, static_cast<char>(b))));
  for (const std::string& token : extra) spec.tokens.push_back(token);
  spec.merges = merges;
  return spec;
}

void ExpectStreamMatchesDecode(const Tokenizer& tok, const std::vector<TokenId>& ids, bool skip_special,
                               int* mismatches, int max_reported) {
  IncrementalDetokenizer detok(tok, skip_special);
  std::string text;
  for (TokenId id : ids) {
    const StatusOr<std::string> delta = detok.Push(id);
    ASSERT_TRUE(delta.ok()) << delta.status().ToString();
    if (!IsValidUtf8(*delta) && ++*mismatches <= max_reported) {
      ADD_FAILURE() << IdsToString(ids) << ": delta \"" << Escape(*delta) << "\" is not UTF-8";
    }
    text += *delta;
  }
  text += detok.Finish();
  const std::string want = *tok.Decode(ids, skip_special);
  if (text != want && ++*mismatches <= max_reported) {
    ADD_FAILURE() << IdsToString(ids) << " skip_special=" << skip_special << "\n  decode   \"" << Escape(want)
                  << "\"\n  streamed \"" << Escape(text) << "\"";
  }
}

}  // namespace pagoda::tokenizer::testing
