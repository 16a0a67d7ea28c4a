#include "InterruptGuard.h"

#include <csignal>

namespace pipescope::cli {

namespace {
volatile std::sig_atomic_t gInterrupted = 0;
volatile std::sig_atomic_t gInstalled = 0;

extern "C" void onInterrupt(int) {
  gInterrupted = 1;
  // The next Ctrl-C must always work, even if the run does not stop.
  std::signal(SIGINT, SIG_DFL);
}
}  // namespace

void InterruptGuard::install() {
  if (gInstalled) return;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  gInstalled = 1;
  // A parent may start us with SIGINT blocked; an interrupt it let pile up is
  // delivered now, to the handler, and Ctrl-C works from here on.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_UNBLOCK, &mask, nullptr);
}

void InterruptGuard::releaseToDefault() {
  std::signal(SIGINT, SIG_DFL);
  gInstalled = 0;
  if (gInterrupted) std::raise(SIGINT);
}

bool InterruptGuard::requested() { return gInterrupted != 0; }

InterruptGuard::InterruptGuard() { install(); }

}  // namespace pipescope::cli
