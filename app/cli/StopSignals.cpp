#include "StopSignals.h"

#include <csignal>
#include <string>

namespace pipescope::cli {

const int StopSignals::kSignals[StopSignals::kCount] = {SIGINT, SIGTERM, SIGHUP};

namespace {
volatile std::sig_atomic_t gReceived = 0;
volatile std::sig_atomic_t gInstalled = 0;

extern "C" void onStopSignal(int signalNumber) {
  if (gReceived == 0) gReceived = signalNumber;
  // The next signal of this kind must always work, even if the command does not stop.
  std::signal(signalNumber, SIG_DFL);
}

sigset_t stopSignalSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : StopSignals::kSignals) sigaddset(&set, s);
  return set;
}
}  // namespace

void StopSignals::install() {
  if (gInstalled) return;
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  // A signal must not make a write of the trace, on another thread, fail with EINTR.
  action.sa_flags = SA_RESTART;
  for (int s : kSignals) {
    // `nohup` starts us with SIGHUP ignored so that closing the terminal does not stop
    // the run: that stays so. SIGINT, which a non-interactive shell's background jobs
    // inherit ignored, is still handled: scripts stop such a job with kill -INT.
    struct sigaction old {};
    sigaction(s, nullptr, &old);
    if (s == SIGHUP && old.sa_handler == SIG_IGN) continue;
    sigaction(s, &action, nullptr);
  }
  gInstalled = 1;
  // A parent may start us with these signals blocked; one it let pile up is
  // delivered now, to the handler, and they work from here on.
  const sigset_t set = stopSignalSet();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void StopSignals::releaseToDefault() {
  for (int s : kSignals) {
    struct sigaction current {};
    sigaction(s, nullptr, &current);
    if (current.sa_handler == onStopSignal) std::signal(s, SIG_DFL);
  }
  gInstalled = 0;
  if (gReceived) std::raise(gReceived);
}

bool StopSignals::requested() { return gReceived != 0; }

int StopSignals::received() { return gReceived; }

std::string StopSignals::name() {
  switch (gReceived) {
    case 0: return {};
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(gReceived);
  }
}

std::string StopSignals::describe() {
  switch (gReceived) {
    case SIGINT: return "SIGINT (Ctrl-C)";
    case SIGHUP: return "SIGHUP (the terminal closed)";
    default: return name();
  }
}

int StopSignals::exitCode(int normal) { return gReceived ? 128 + gReceived : normal; }

StopSignals::StopSignals() { install(); }

}  // namespace pipescope::cli
