// Status and StatusOr<T>: how expected failures (bad files, bad requests,
// prompts too long) travel. Programmer errors use PAGODA_CHECK instead.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace pagoda {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kOutOfRange,
  kDataLoss,         // corrupt or truncated input
  kUnimplemented,    // valid input we do not support
  kResourceExhausted,
  kFailedPrecondition,
  kInternal,
  kUnavailable,  // refused for now (a full queue): retrying later may succeed
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message", or "OK".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status OutOfRangeError(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status DataLossError(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) { assert(!status_.ok()); }
  StatusOr(T value) : value_(std::move(value)) {}

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace pagoda

#define PAGODA_CONCAT_INNER(a, b) a##b
#define PAGODA_CONCAT(a, b) PAGODA_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define PAGODA_RETURN_IF_ERROR(expr)               \
  do {                                             \
    ::pagoda::Status pagoda_status_ = (expr);      \
    if (!pagoda_status_.ok()) return pagoda_status_; \
  } while (0)

// `PAGODA_ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a StatusOr or returns its error.
#define PAGODA_ASSIGN_OR_RETURN(lhs, expr) \
  PAGODA_ASSIGN_OR_RETURN_IMPL(PAGODA_CONCAT(pagoda_statusor_, __LINE__), lhs, expr)
#define PAGODA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
