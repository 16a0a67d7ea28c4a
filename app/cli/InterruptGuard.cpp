#include "InterruptGuard.h"

#include <csignal>

namespace pipescope::cli {

namespace {
volatile std::sig_atomic_t gInterrupted = 0;
struct sigaction gPrevious {};

extern "C" void onInterrupt(int) {
  gInterrupted = 1;
  // The next Ctrl-C must always work, even if the run does not stop.
  std::signal(SIGINT, SIG_DFL);
}
}  // namespace

InterruptGuard::InterruptGuard() {
  gInterrupted = 0;
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &gPrevious);
}

InterruptGuard::~InterruptGuard() { sigaction(SIGINT, &gPrevious, nullptr); }

bool InterruptGuard::interrupted() const { return gInterrupted != 0; }

}  // namespace pipescope::cli
