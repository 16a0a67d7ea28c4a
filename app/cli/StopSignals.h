#pragma once
// Turns the first stop signal (SIGINT from Ctrl-C, SIGTERM from kill, timeout,
// systemd, Docker or a job scheduler, SIGHUP from a closed terminal) into a polite
// request that long commands (run, sweep, lessons, and any that records) poll, so
// they stop between operations and still save and print what they recorded. A second
// signal of the same kind takes the default action: the process ends at once.
//
// main() installs the handlers before it does anything else, so a signal that
// arrives while the options are parsed or the backend starts is remembered (not lost,
// and not left to an inherited "ignore" of a background job) and ends the command at
// its first batch boundary. Commands that never poll get the default actions back
// (releaseToDefault), with a signal that already arrived delivered then.
//
// A SIGHUP ignored at start (`nohup`) stays ignored.
//
// A command stopped by a signal exits with 128 + the signal's number, the shell's
// convention (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), after saving.
#include <string>

namespace pipescope::cli {

class StopSignals {
 public:
  /// Installs the polite handlers for the rest of the process (idempotent). Never
  /// clears a signal that already arrived.
  static void install();
  /// For commands that do not poll: restores the default actions and, if a stop
  /// signal already arrived, ends the process as its default action would.
  static void releaseToDefault();
  /// Whether a stop signal arrived since install().
  static bool requested();
  /// The first stop signal that arrived (SIGINT, SIGTERM or SIGHUP), 0 if none.
  static int received();
  /// "SIGINT", "SIGTERM", "SIGHUP"; empty if none arrived.
  static std::string name();
  /// The name with what usually sends it: "SIGINT (Ctrl-C)", "SIGHUP (the terminal
  /// closed)"; empty if none arrived.
  static std::string describe();
  /// 128 + the signal's number when one arrived, else `normal`.
  static int exitCode(int normal);
  /// The signals handled, for tests and commands that wait for them.
  static constexpr int kCount = 3;
  static const int kSignals[kCount];

  StopSignals();  ///< installs the handlers if main() did not
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  bool interrupted() const { return requested(); }
};

/// The handler's name from before SIGTERM and SIGHUP were handled too.
using InterruptGuard = StopSignals;

}  // namespace pipescope::cli
