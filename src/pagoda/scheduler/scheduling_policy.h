// The order in which the scheduler admits and preempts, apart from the rest
// of its configuration so that the engine's configuration can name it alone.
#pragma once

namespace pagoda {

enum class SchedulingPolicy {
  kFcfs,      // arrival order; the newest running sequence is preempted first
  kPriority,  // lowest priority value first, then arrival; preempts the lowest priority, newest first
};

}  // namespace pagoda
