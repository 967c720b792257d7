#include "pagoda/apps/bench_serve/model_list.h"

#include <curl/curl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace pagoda::apps::bench_serve {
namespace {

size_t AppendToString(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

StatusOr<std::string> FirstServedModel(const std::string& base_url, const std::string& api_key) {
  const std::string url = base_url + "/v1/models";
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(nullptr, curl_slist_free_all);
  if (!api_key.empty()) headers.reset(curl_slist_append(nullptr, ("Authorization: Bearer " + api_key).c_str()));
  std::string body;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, AppendToString);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) return UnavailableError(fmt::format("{}: {}", url, curl_easy_strerror(rc)));
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return UnavailableError(fmt::format("{}: HTTP {}: {}", url, status, body.substr(0, 200)));
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array() || j["data"].empty() ||
      !j["data"][0].is_object() || !j["data"][0].contains("id") || !j["data"][0]["id"].is_string()) {
    return UnavailableError(fmt::format("{} lists no model (pass --model)", url));
  }
  return j["data"][0]["id"].get<std::string>();
}

}  // namespace pagoda::apps::bench_serve
