#include "pagoda/engine/hub_download.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pagoda/engine/file_digest.h"
#include "pagoda/engine/hf_cache.h"
#include "pagoda/engine/http_fetch.h"

namespace pagoda {
namespace {

namespace fs = std::filesystem;

constexpr int kTries = 5;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Everything but RFC 3986's unreserved characters, percent-encoded.
std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// The files a model directory needs; the rest of a repository (other
// weight formats, images, READMEs) is left on the Hub.
bool Wanted(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".safetensors") || name.ends_with(".jinja") ||
         name == "tokenizer.model";
}

std::string Unquoted(std::string etag) {
  if (etag.starts_with("W/")) etag.erase(0, 2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

bool IsHex(const std::string& s, size_t size) {
  return s.size() == size && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Prints "<file>: 42% (1.1 of 2.6 MiB)", redrawn in place on a terminal and
// every quarter elsewhere.
class Progress {
 public:
  Progress(std::string file, int64_t total) : file_(std::move(file)), total_(total), tty_(isatty(STDERR_FILENO) != 0) {}
  void Update(int64_t bytes) {
    const int percent = total_ > 0 ? static_cast<int>(100 * bytes / total_) : 0;
    const auto now = std::chrono::steady_clock::now();
    const bool due = tty_ ? now - last_ >= std::chrono::milliseconds(200) : percent / 25 > shown_ / 25;
    if (!due && bytes < total_) return;
    if (percent == shown_ && bytes < total_) return;
    last_ = now;
    shown_ = percent;
    std::fprintf(stderr, "%sDownloading %s: %d%% (%.1f of %.1f MiB)%s", tty_ ? "\r" : "", file_.c_str(), percent,
                 bytes / 1048576.0, total_ / 1048576.0, tty_ && bytes < total_ ? "" : "\n");
  }

 private:
  std::string file_;
  int64_t total_;
  bool tty_;
  int shown_ = -1;
  std::chrono::steady_clock::time_point last_{};
};

Status Verify(const std::string& path, const std::string& etag, const std::string& file) {
  StatusOr<std::string> digest = IsHex(etag, 64) ? FileSha256Hex(path)
                                 : IsHex(etag, 40) ? FileGitBlobSha1Hex(path)
                                                   : StatusOr<std::string>(etag);  // no digest to check against
  PAGODA_RETURN_IF_ERROR(digest.status());
  if (*digest != etag) {
    std::error_code error;
    fs::remove(path, error);
    return DataLossError(fmt::format("downloaded {} does not match its checksum (expected {}, got {}); removed it",
                                     file, etag, *digest));
  }
  return Status::Ok();
}

class Downloader {
 public:
  Downloader(std::string id, std::string endpoint, fs::path repo)
      : id_(std::move(id)), endpoint_(std::move(endpoint)), repo_(std::move(repo)),
        http_(Env("HF_TOKEN").empty() ? Env("HUGGING_FACE_HUB_TOKEN") : Env("HF_TOKEN")) {}

  // The commit `revision` names and the files to fetch.
  StatusOr<std::pair<std::string, std::vector<std::string>>> Listing(const std::string& revision) {
    const std::string url = fmt::format("{}/api/models/{}/revision/{}", endpoint_, id_, UrlEncode(revision));
    StatusOr<HttpResponse> r = http_.Get(url);
    if (!r.ok()) return UnavailableError("the Hugging Face Hub cannot be reached: " + r.status().message());
    if (r->status == 401 || r->status == 403) {
      return FailedPreconditionError(fmt::format("{} (HTTP {}): the model is gated or private; set HF_TOKEN", url, r->status));
    }
    if (r->status != 200) return NotFoundError(fmt::format("{}: HTTP {}: no such model or revision on the Hub", url, r->status));
    nlohmann::json info;
    try {
      info = nlohmann::json::parse(r->body);
    } catch (const nlohmann::json::exception& e) {
      return DataLossError(fmt::format("{}: not JSON: {}", url, e.what()));
    }
    const std::string sha = info.value("sha", "");
    if (!IsHex(sha, 40)) return DataLossError(url + ": no commit sha in the answer");
    std::vector<std::string> files;
    for (const auto& sibling : info.value("siblings", nlohmann::json::array())) {
      const std::string name = sibling.value("rfilename", "");
      if (Wanted(name) && name.find("..") == std::string::npos && !name.starts_with("/")) files.push_back(name);
    }
    return std::make_pair(sha, files);
  }

  Status Fetch(const std::string& commit, const std::string& file) {
    const std::string url = fmt::format("{}/{}/resolve/{}/{}", endpoint_, id_, commit, file);
    PAGODA_ASSIGN_OR_RETURN(const HttpResponse head, http_.Head(url));
    if (head.status >= 400) return NotFoundError(fmt::format("{}: HTTP {}", url, head.status));
    const auto header = [&](const char* a, const char* b) {
      const auto it = head.headers.find(a);
      if (it != head.headers.end()) return it->second;
      const auto jt = head.headers.find(b);
      return jt == head.headers.end() ? std::string() : jt->second;
    };
    const std::string etag = Unquoted(header("x-linked-etag", "etag"));
    if (etag.empty() || etag.find('/') != std::string::npos) return DataLossError(url + ": no usable ETag");
    const int64_t size = std::atoll(header("x-linked-size", "content-length").c_str());
    const fs::path blob = repo_ / "blobs" / etag;
    std::error_code error;
    fs::create_directories(blob.parent_path(), error);
    if (!fs::exists(blob, error)) PAGODA_RETURN_IF_ERROR(FetchBlob(url, blob, etag, size, file));
    const fs::path link = repo_ / "snapshots" / commit / file;
    fs::create_directories(link.parent_path(), error);
    fs::remove(link, error);
    fs::create_symlink(fs::relative(blob, link.parent_path()), link, error);
    if (error) return InternalError(fmt::format("cannot link {}: {}", link.string(), error.message()));
    return Status::Ok();
  }

 private:
  Status FetchBlob(const std::string& url, const fs::path& blob, const std::string& etag, int64_t size,
                   const std::string& file) {
    const std::string partial = blob.string() + ".incomplete";
    Progress progress(file, size);
    Status status;
    for (int attempt = 0; attempt < kTries; ++attempt) {
      std::error_code error;
      const int64_t have = fs::exists(partial, error) ? static_cast<int64_t>(fs::file_size(partial, error)) : 0;
      if (size > 0 && have == size) break;
      if (have > 0) std::fprintf(stderr, "Resuming %s at byte %lld\n", file.c_str(), static_cast<long long>(have));
      status = http_.GetToFile(url, partial, have, [&](int64_t bytes) { progress.Update(bytes); });
      if (status.ok() || status.code() != StatusCode::kUnavailable) break;
    }
    PAGODA_RETURN_IF_ERROR(status);
    PAGODA_RETURN_IF_ERROR(Verify(partial, etag, file));
    std::error_code error;
    fs::rename(partial, blob, error);
    if (error) return InternalError(fmt::format("cannot move {} into place: {}", partial, error.message()));
    return Status::Ok();
  }

  std::string id_;
  std::string endpoint_;
  fs::path repo_;
  HttpFetch http_;
};

}  // namespace

std::string HfEndpoint() {
  std::string endpoint = Env("HF_ENDPOINT");
  if (endpoint.empty()) endpoint = "https://huggingface.co";
  while (endpoint.ends_with('/')) endpoint.pop_back();
  return endpoint;
}

StatusOr<std::string> DownloadModel(const std::string& id, const std::string& revision) {
  const std::string wanted = revision.empty() ? "main" : revision;
  const fs::path repo = HfRepoCacheDir(id);
  Downloader downloader(id, HfEndpoint(), repo);
  PAGODA_ASSIGN_OR_RETURN(auto listing, downloader.Listing(wanted));
  const auto& [commit, files] = listing;
  if (std::find(files.begin(), files.end(), "config.json") == files.end()) {
    return NotFoundError(fmt::format("model '{}' at {} has no config.json on the Hub", id, wanted));
  }
  for (const std::string& file : files) PAGODA_RETURN_IF_ERROR(downloader.Fetch(commit, file));
  if (wanted != commit) {
    std::error_code error;
    fs::create_directories(repo / "refs" / fs::path(wanted).parent_path(), error);
    std::ofstream(repo / "refs" / wanted) << commit;
  }
  return (repo / "snapshots" / commit).string();
}

}  // namespace pagoda
