#pragma once
// While `record` runs a program, SIGTERM and SIGHUP sent to pipescope are passed on to
// the program: a job scheduler's or a service manager's stop, or a closed terminal,
// reaches it as it would without pipescope, and the recording goes on until it exits.
// (Ctrl-C needs no forwarding: the terminal sends it to the program too, which shares
// pipescope's process group.) The handlers stay until the object goes.
#include <sys/types.h>

namespace pipescope::cli {

class ChildSignals {
 public:
  ChildSignals();   ///< installs the handlers; a signal before setChild() is kept for it
  ~ChildSignals();  ///< restores the previous handlers
  ChildSignals(const ChildSignals&) = delete;
  ChildSignals& operator=(const ChildSignals&) = delete;

  /// From now on signals go to `pid`; one that came before goes now.
  void setChild(pid_t pid);
  /// The last signal passed on (0: none).
  static int forwarded();
};

}  // namespace pipescope::cli
