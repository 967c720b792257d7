// PAGODA_CHECK: invariants whose failure is a programmer error, not bad input.
// It aborts with the location, in every build type.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace pagoda::internal {
[[noreturn]] inline void CheckFailed(const char* expr, const char* file, int line, const char* msg) {
  std::fprintf(stderr, "%s:%d: check failed: %s %s\n", file, line, expr, msg ? msg : "");
  std::abort();
}
}  // namespace pagoda::internal

#define PAGODA_CHECK(cond)                                                              \
  do {                                                                                  \
    if (!(cond)) ::pagoda::internal::CheckFailed(#cond, __FILE__, __LINE__, nullptr);  \
  } while (0)

#define PAGODA_CHECK_MSG(cond, msg)                                                 \
  do {                                                                              \
    if (!(cond)) ::pagoda::internal::CheckFailed(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)
