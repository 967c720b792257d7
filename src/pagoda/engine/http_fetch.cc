#include "pagoda/engine/http_fetch.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>

namespace pagoda {
namespace {

// curl_global_init is not thread-safe: done once, on first use.
void InitCurlOnce() {
  static const bool done = [] { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }();
  (void)done;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t AppendToString(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t ReadHeader(char* data, size_t size, size_t n, void* out) {
  const std::string line(data, size * n);
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r\n") + 1);
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * n;
}

struct FileSink {
  std::FILE* file = nullptr;
  int64_t bytes = 0;
  long status = 0;
  CURL* curl = nullptr;
  bool truncated = false;
  const std::function<void(int64_t)>* progress = nullptr;
};

size_t WriteToFile(char* data, size_t size, size_t n, void* out) {
  auto* sink = static_cast<FileSink*>(out);
  if (sink->status == 0) {
    curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &sink->status);
    // A full body instead of the range asked for: start the file over.
    if (sink->status == 200 && sink->bytes > 0 && !sink->truncated) {
      std::freopen(nullptr, "wb", sink->file);
      sink->bytes = 0;
      sink->truncated = true;
    }
    if (sink->status != 200 && sink->status != 206) return 0;  // an error page is not the file
  }
  const size_t written = std::fwrite(data, 1, size * n, sink->file);
  sink->bytes += static_cast<int64_t>(written);
  if (*sink->progress) (*sink->progress)(sink->bytes);
  return written;
}

class Request {
 public:
  Request(const std::string& url, const std::string& token) : curl_(curl_easy_init()) {
    InitCurlOnce();
    curl_easy_setopt(curl_.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_.get(), CURLOPT_USERAGENT, "pagoda");
    curl_easy_setopt(curl_.get(), CURLOPT_CONNECTTIMEOUT, 10L);
    // A stalled transfer (under 1 byte/s for 30 s) fails, to be resumed.
    curl_easy_setopt(curl_.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl_.get(), CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(curl_.get(), CURLOPT_NOSIGNAL, 1L);
    if (!token.empty()) {
      headers_.reset(curl_slist_append(nullptr, ("Authorization: Bearer " + token).c_str()));
      curl_easy_setopt(curl_.get(), CURLOPT_HTTPHEADER, headers_.get());
    }
  }
  CURL* get() { return curl_.get(); }

  Status Perform(const std::string& url) {
    const CURLcode rc = curl_easy_perform(curl_.get());
    if (rc != CURLE_OK) return UnavailableError(fmt::format("{}: {}", url, curl_easy_strerror(rc)));
    return Status::Ok();
  }

 private:
  std::unique_ptr<CURL, CurlDeleter> curl_;
  std::unique_ptr<curl_slist, ListDeleter> headers_;
};

}  // namespace

StatusOr<HttpResponse> HttpFetch::Get(const std::string& url) const {
  Request request(url, token_);
  HttpResponse response;
  curl_easy_setopt(request.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(request.get(), CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(request.get(), CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(request.get(), CURLOPT_HEADERFUNCTION, ReadHeader);
  curl_easy_setopt(request.get(), CURLOPT_HEADERDATA, &response.headers);
  PAGODA_RETURN_IF_ERROR(request.Perform(url));
  curl_easy_getinfo(request.get(), CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

StatusOr<HttpResponse> HttpFetch::Head(const std::string& url) const {
  Request request(url, token_);
  HttpResponse response;
  curl_easy_setopt(request.get(), CURLOPT_NOBODY, 1L);
  curl_easy_setopt(request.get(), CURLOPT_HEADERFUNCTION, ReadHeader);
  curl_easy_setopt(request.get(), CURLOPT_HEADERDATA, &response.headers);
  PAGODA_RETURN_IF_ERROR(request.Perform(url));
  curl_easy_getinfo(request.get(), CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

Status HttpFetch::GetToFile(const std::string& url, const std::string& path, int64_t offset,
                            const std::function<void(int64_t)>& progress) const {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), offset > 0 ? "ab" : "wb"), std::fclose);
  if (file == nullptr) return InternalError("cannot write " + path);
  Request request(url, token_);
  FileSink sink{.file = file.get(), .bytes = offset, .curl = request.get(), .progress = &progress};
  curl_easy_setopt(request.get(), CURLOPT_FOLLOWLOCATION, 1L);
  if (offset > 0) curl_easy_setopt(request.get(), CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(offset));
  curl_easy_setopt(request.get(), CURLOPT_WRITEFUNCTION, WriteToFile);
  curl_easy_setopt(request.get(), CURLOPT_WRITEDATA, &sink);
  const Status status = request.Perform(url);
  long code = 0;
  curl_easy_getinfo(request.get(), CURLINFO_RESPONSE_CODE, &code);
  if (code != 0 && code != 200 && code != 206) {
    return code == 401 || code == 403 ? FailedPreconditionError(fmt::format("{}: HTTP {} (is HF_TOKEN set?)", url, code))
                                      : NotFoundError(fmt::format("{}: HTTP {}", url, code));
  }
  return status;
}

}  // namespace pagoda
