#pragma once
// Turns the first Ctrl-C (SIGINT) into a polite request the run loop polls, so a run
// stops between operations and still prints and saves what it recorded. A second
// Ctrl-C falls back to the default action (the process ends at once).
//
// main() installs the handler before it does anything else, so an interrupt that
// arrives while the options are parsed or the backend starts is remembered (not lost,
// and not left to an inherited "ignore" of a background job) and ends the run at its
// first batch boundary. Commands that never poll it get the default action back
// (releaseToDefault), with an interrupt that already arrived delivered then.
#include <atomic>

namespace pipescope::cli {

class InterruptGuard {
 public:
  /// Installs the polite handler for the rest of the process (idempotent). Never
  /// clears an interrupt that already arrived.
  static void install();
  /// For commands that do not poll: restores the default action and, if an interrupt
  /// already arrived, ends the process as the default action would.
  static void releaseToDefault();
  /// Whether an interrupt arrived since install().
  static bool requested();

  InterruptGuard();  ///< installs the handler if main() did not
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  bool interrupted() const { return requested(); }
};

}  // namespace pipescope::cli
