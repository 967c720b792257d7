#include "pagoda/beam_search/beam_round.h"

#include "pagoda/base/check.h"

namespace pagoda {

std::unique_ptr<Request> EndBeamRound(BeamSearch& search, Scheduler& scheduler, RequestHandle handle,
                                      std::vector<ParkedSuccessor>* children) {
  const Request* request = scheduler.request(handle);
  PAGODA_CHECK_MSG(request != nullptr && request->parks(), "a beam round of an unknown or non-parking request");
  PAGODA_CHECK(request->num_sequences() == search.num_live());
  const BeamSearch::Round round = search.Advance();
  if (children != nullptr) *children = round.children;
  if (round.children.empty()) return scheduler.DropParked(handle, round.num_generated);
  scheduler.ForkParked(handle, round.children, round.num_generated);
  return nullptr;
}

}  // namespace pagoda
