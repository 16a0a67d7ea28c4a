#include "ChildSignals.h"

#include <csignal>

namespace pipescope::cli {

namespace {
volatile std::sig_atomic_t gChild = 0;
volatile std::sig_atomic_t gPending = 0;
volatile std::sig_atomic_t gForwarded = 0;
struct sigaction gPrevious[2];
constexpr int kSignals[2] = {SIGTERM, SIGHUP};

extern "C" void forwardStopSignal(int sig) {
  gForwarded = sig;
  if (gChild > 0)
    ::kill(pid_t(gChild), sig);  // async-signal-safe
  else
    gPending = sig;
}
}  // namespace

ChildSignals::ChildSignals() {
  struct sigaction action {};
  action.sa_handler = forwardStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &action, &gPrevious[i]);
}

ChildSignals::~ChildSignals() {
  for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &gPrevious[i], nullptr);
  gChild = 0;
}

void ChildSignals::setChild(pid_t pid) {
  gChild = std::sig_atomic_t(pid);
  if (const int pending = gPending; pending != 0) {
    gPending = 0;
    ::kill(pid, pending);
  }
}

int ChildSignals::forwarded() { return gForwarded; }

}  // namespace pipescope::cli
