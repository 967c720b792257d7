// The few HTTP requests a Hugging Face Hub download makes, through libcurl:
// a JSON GET, a HEAD that reads headers without following redirects, and a
// GET into a file that resumes from the bytes already there.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "pagoda/base/status.h"

namespace pagoda {

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class HttpFetch {
 public:
  // `token`, when set, is sent as "Authorization: Bearer <token>".
  explicit HttpFetch(std::string token) : token_(std::move(token)) {}

  // UNAVAILABLE when the host cannot be reached, naming curl's reason.
  StatusOr<HttpResponse> Get(const std::string& url) const;
  StatusOr<HttpResponse> Head(const std::string& url) const;
  // Appends the body of `url` from byte `offset` to the file at `path`
  // (asking for a Range when offset > 0; a server that answers 200
  // instead restarts the file). `progress(bytes_in_file)` is called as data
  // arrives. UNAVAILABLE when the transfer breaks: what arrived stays.
  Status GetToFile(const std::string& url, const std::string& path, int64_t offset,
                   const std::function<void(int64_t)>& progress) const;

 private:
  std::string token_;
};

}  // namespace pagoda
