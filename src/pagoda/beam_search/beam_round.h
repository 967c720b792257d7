// Where beam search meets the scheduler. A beam request parks its
// sequences (Request::parks()): the scheduler computes each beam and then
// leaves it be. Once every beam has offered its candidates, EndBeamRound
// decides the round and hands the scheduler its outcome through the park
// API: the next round's beams (ForkParked), or the end of the search
// (DropParked). The scheduler knows nothing of beams.
#pragma once

#include <memory>
#include <vector>

#include "pagoda/beam_search/beam_search.h"
#include "pagoda/request/request.h"
#include "pagoda/scheduler/scheduler.h"

namespace pagoda {

// Ends the search's current round (every beam has its candidates) for the
// request at `handle`. Returns the request, finished, when the search is
// over; null while it goes on. `children`, when given, receives the next
// round's beams (beam i continues beam `parent` with `token`).
std::unique_ptr<Request> EndBeamRound(BeamSearch& search, Scheduler& scheduler, RequestHandle handle,
                                      std::vector<ParkedSuccessor>* children = nullptr);

}  // namespace pagoda
