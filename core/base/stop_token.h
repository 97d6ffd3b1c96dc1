// Progress and cancellation for long computations, without Qt.
#pragma once

#include <functional>
#include <stop_token>

namespace dpx {

// Called with the fraction done in [0, 1]; may be called from worker threads, so it must be
// thread-safe (the GUI forwards it through a queued signal).
using ProgressCallback = std::function<void(double fraction)>;

}  // namespace dpx
