#include "pagoda/request/request_status.h"

#include "pagoda/base/check.h"

namespace pagoda {

const char* RequestStatusName(RequestStatus s) {
  switch (s) {
    case RequestStatus::kWaiting:
      return "WAITING";
    case RequestStatus::kRunning:
      return "RUNNING";
    case RequestStatus::kPreempted:
      return "PREEMPTED";
    case RequestStatus::kFinishedStopped:
      return "FINISHED_STOPPED";
    case RequestStatus::kFinishedLength:
      return "FINISHED_LENGTH_CAPPED";
    case RequestStatus::kFinishedAborted:
      return "FINISHED_ABORTED";
  }
  return "?";
}

const char* FinishReasonName(FinishReason r) {
  switch (r) {
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kAbort:
      return "abort";
  }
  return "?";
}

FinishReason FinishReasonOf(RequestStatus finished_status) {
  switch (finished_status) {
    case RequestStatus::kFinishedStopped:
      return FinishReason::kStop;
    case RequestStatus::kFinishedLength:
      return FinishReason::kLength;
    case RequestStatus::kFinishedAborted:
      return FinishReason::kAbort;
    default:
      PAGODA_CHECK_MSG(false, "status is not a finished one");
  }
}

}  // namespace pagoda
