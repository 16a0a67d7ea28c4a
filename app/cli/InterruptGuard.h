#pragma once
// Turns the first Ctrl-C (SIGINT) into a polite request the run loop polls, so a run
// stops between operations and still prints what it recorded. A second Ctrl-C
// falls back to the default action (the process ends at once).
#include <atomic>

namespace pipescope::cli {

class InterruptGuard {
 public:
  InterruptGuard();   ///< installs the handler
  ~InterruptGuard();  ///< restores the previous one
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  bool interrupted() const;
};

}  // namespace pipescope::cli
