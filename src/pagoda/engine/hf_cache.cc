#include "pagoda/engine/hf_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace pagoda {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

bool IsIdPart(const std::string& part) {
  if (part.empty() || part.front() == '.' || part.size() > 96) return false;
  for (char c : part) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool IsCommitHash(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::string HfHubCacheDir() {
  if (std::string dir = Env("HF_HUB_CACHE"); !dir.empty()) return dir;
  if (std::string home = Env("HF_HOME"); !home.empty()) return (fs::path(home) / "hub").string();
  if (std::string xdg = Env("XDG_CACHE_HOME"); !xdg.empty()) return (fs::path(xdg) / "huggingface" / "hub").string();
  return (fs::path(Env("HOME")) / ".cache" / "huggingface" / "hub").string();
}

std::string HfRepoCacheDir(const std::string& id) {
  const size_t slash = id.find('/');
  return (fs::path(HfHubCacheDir()) / ("models--" + id.substr(0, slash) + "--" + id.substr(slash + 1))).string();
}

bool LooksLikeModelId(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos) return false;
  return IsIdPart(text.substr(0, slash)) && IsIdPart(text.substr(slash + 1));
}

StatusOr<std::string> ResolveCachedModel(const std::string& id, const std::string& revision) {
  const std::string wanted = revision.empty() ? "main" : revision;
  const fs::path repo = HfRepoCacheDir(id);
  std::string commit = wanted;
  if (!IsCommitHash(wanted)) {
    if (wanted.find("..") != std::string::npos) return InvalidArgumentError("--revision '" + wanted + "' is not a revision");
    std::ifstream ref(repo / "refs" / wanted);
    if (!(ref >> commit)) {
      return NotFoundError("model '" + id + "' at revision '" + wanted + "' is not in the Hugging Face cache (no " +
                           (repo / "refs" / wanted).string() + ")");
    }
  }
  const fs::path snapshot = repo / "snapshots" / commit;
  std::error_code error;
  if (!fs::is_directory(snapshot, error)) {
    return NotFoundError("model '" + id + "': the Hugging Face cache has no snapshot " + snapshot.string());
  }
  return snapshot.string();
}

}  // namespace pagoda
