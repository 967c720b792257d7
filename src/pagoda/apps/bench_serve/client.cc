#include "pagoda/apps/bench_serve/client.h"

#include <curl/curl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <memory>

#include "pagoda/apps/bench_serve/completion_chunk.h"
#include "pagoda/apps/bench_serve/sse_splitter.h"

namespace pagoda::apps::bench_serve {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One request in flight: its curl handle and what has been measured so far.
struct Transfer {
  size_t index = 0;
  std::unique_ptr<CURL, void (*)(CURL*)> curl{nullptr, curl_easy_cleanup};
  std::string body;
  Clock::time_point start;
  Clock::time_point last_token;
  bool got_token = false;
  int64_t token_chunks = 0;
  long status = 0;
  std::string error_body;  // a non-200 response's body, for its message
  SseSplitter splitter;
  RequestResult result;
  char curl_error[CURL_ERROR_SIZE] = {};

  void OnEvent(const std::string& data, Clock::time_point now) {
    const CompletionChunk chunk = ParseCompletionChunk(data);
    if (!chunk.error.empty() && result.error.empty()) result.error = chunk.error;
    if (chunk.has_choices) {
      if (!got_token) {
        result.ttft = Seconds(now - start);
      } else {
        result.itl.push_back(Seconds(now - last_token));
      }
      got_token = true;
      last_token = now;
      ++token_chunks;
      result.generated_text += chunk.text;
    }
    if (chunk.completion_tokens) result.output_tokens = *chunk.completion_tokens;
    if (chunk.prompt_tokens) result.prompt_len = *chunk.prompt_tokens;
  }
};

// curl's write callback: the time is taken here, as the bytes arrive.
size_t OnBytes(char* data, size_t size, size_t n, void* user) {
  const Clock::time_point now = Clock::now();
  auto* t = static_cast<Transfer*>(user);
  const std::string_view bytes(data, size * n);
  if (t->status == 0) curl_easy_getinfo(t->curl.get(), CURLINFO_RESPONSE_CODE, &t->status);
  if (t->status != 200) {
    if (t->error_body.size() < 1000) t->error_body.append(bytes.substr(0, 1000));
    return bytes.size();
  }
  for (const std::string& event : t->splitter.Feed(bytes)) t->OnEvent(event, now);
  return bytes.size();
}

std::unique_ptr<Transfer> StartTransfer(const ClientOptions& options, const BenchPrompt& prompt, size_t index,
                                        curl_slist* headers) {
  auto t = std::make_unique<Transfer>();
  t->index = index;
  t->body = CompletionBody(options, prompt);
  t->result.prompt_len = prompt.prompt_len;
  t->curl.reset(curl_easy_init());
  CURL* c = t->curl.get();
  curl_easy_setopt(c, CURLOPT_URL, options.url.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, t->body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBytes);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, t->curl_error);
  curl_easy_setopt(c, CURLOPT_PRIVATE, t.get());
  t->start = Clock::now();
  t->last_token = t->start;
  return t;
}

RequestResult Finish(Transfer& t, CURLcode code) {
  for (const std::string& event : t.splitter.Finish()) t.OnEvent(event, Clock::now());
  RequestResult r = std::move(t.result);
  if (code != CURLE_OK) {
    r.error = fmt::format("{}", t.curl_error[0] != '\0' ? t.curl_error : curl_easy_strerror(code));
  } else if (t.status != 200) {
    r.error = fmt::format("HTTP {}: {}", t.status, t.error_body);
  } else if (r.error.empty() && !t.got_token) {
    r.error = "never received a chunk with a choice to time the first token";
  }
  r.success = r.error.empty();
  if (!r.success) return RequestResult{.prompt_len = r.prompt_len, .error = r.error};
  // vLLM's E2EL ends at the last token chunk; the usage chunk and [DONE] carry no token.
  r.latency = Seconds(t.last_token - t.start);
  if (r.output_tokens == 0) r.output_tokens = t.token_chunks;
  return r;
}

}  // namespace

std::string CompletionBody(const ClientOptions& options, const BenchPrompt& prompt) {
  nlohmann::json body = {
      {"model", options.model},
      {"prompt", prompt.text.empty() ? nlohmann::json(prompt.token_ids) : nlohmann::json(prompt.text)},
      {"max_tokens", prompt.output_len},
      {"temperature", options.temperature},
      {"stream", true},
      {"stream_options", {{"include_usage", true}}},
  };
  if (options.ignore_eos) body["ignore_eos"] = true;
  return body.dump();
}

RunResult RunRequests(const ClientOptions& options, const std::vector<BenchPrompt>& prompts,
                      const std::vector<double>& arrivals) {
  std::unique_ptr<CURLM, CURLMcode (*)(CURLM*)> multi(curl_multi_init(), curl_multi_cleanup);
  // "Expect:" keeps curl from waiting on a 100-continue for large bodies.
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(
      curl_slist_append(curl_slist_append(nullptr, "Content-Type: application/json"), "Expect:"), curl_slist_free_all);
  if (!options.api_key.empty()) {
    headers.reset(curl_slist_append(headers.release(), ("Authorization: Bearer " + options.api_key).c_str()));
  }
  RunResult run;
  run.requests.resize(prompts.size());
  std::vector<std::unique_ptr<Transfer>> in_flight;
  const size_t limit = options.max_concurrency > 0 ? static_cast<size_t>(options.max_concurrency) : prompts.size();
  const Clock::time_point start = Clock::now();
  size_t next = 0;
  while (next < prompts.size() || !in_flight.empty()) {
    while (next < prompts.size() && in_flight.size() < limit && Seconds(Clock::now() - start) >= arrivals[next]) {
      in_flight.push_back(StartTransfer(options, prompts[next], next, headers.get()));
      curl_multi_add_handle(multi.get(), in_flight.back()->curl.get());
      ++next;
    }
    int running = 0;
    curl_multi_perform(multi.get(), &running);
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi.get(), &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      const CURLcode code = msg->data.result;
      curl_multi_remove_handle(multi.get(), msg->easy_handle);
      run.requests[t->index] = Finish(*t, code);
      std::erase_if(in_flight, [t](const auto& p) { return p.get() == t; });
    }
    // Sleep until a socket is ready or the next request is due.
    int wait_ms = 100;
    if (next < prompts.size() && in_flight.size() < limit) {
      const double due = arrivals[next] - Seconds(Clock::now() - start);
      wait_ms = std::clamp(static_cast<int>(due * 1e3), 0, 100);
    }
    if (!in_flight.empty() || wait_ms > 0) curl_multi_poll(multi.get(), nullptr, 0, wait_ms, nullptr);
  }
  run.duration = Seconds(Clock::now() - start);
  return run;
}

}  // namespace pagoda::apps::bench_serve
