#include "app/StopSignalNotifier.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <QApplication>
#include <QSocketNotifier>
#include <QTimer>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace pipescope::ui {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
volatile std::sig_atomic_t gWriteFd = -1;

extern "C" void onStopSignal(int signalNumber) {
  const int savedErrno = errno;
  const unsigned char byte = static_cast<unsigned char>(signalNumber);
  if (gWriteFd >= 0) (void)!::write(gWriteFd, &byte, 1);
  // The next signal of this kind must always work, even if the app hangs.
  std::signal(signalNumber, SIG_DFL);
  errno = savedErrno;
}

}  // namespace

StopSignalNotifier::StopSignalNotifier(QObject* parent) : QObject(parent) {
  if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
    qWarning("pipescope: cannot watch for stop signals (pipe: %s); SIGTERM will end the app at once",
             std::strerror(errno));
    return;
  }
  gWriteFd = fds_[1];
  notifier_ = std::make_unique<QSocketNotifier>(fds_[0], QSocketNotifier::Read);
  connect(notifier_.get(), &QSocketNotifier::activated, this, &StopSignalNotifier::readPipe);
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // no EINTR in the middle of a file write
  sigset_t set;
  sigemptyset(&set);
  for (int s : kStopSignals) {
    // Started with `nohup`: closing the terminal must not close the app.
    struct sigaction old {};
    sigaction(s, nullptr, &old);
    if (s == SIGHUP && old.sa_handler == SIG_IGN) continue;
    sigaction(s, &action, nullptr);
    sigaddset(&set, s);
  }
  // A parent may start the app with them blocked; one it let pile up arrives now.
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

StopSignalNotifier::~StopSignalNotifier() {
  for (int s : kStopSignals) {
    struct sigaction current {};
    sigaction(s, nullptr, &current);
    if (current.sa_handler == onStopSignal) std::signal(s, SIG_DFL);
  }
  gWriteFd = -1;
  notifier_.reset();
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

void StopSignalNotifier::readPipe() {
  unsigned char bytes[16];
  ssize_t n = 0;
  while ((n = ::read(fds_[0], bytes, sizeof bytes)) > 0) {
    if (received_ != 0) continue;
    received_ = bytes[0];
    emit stopRequested(received_);
  }
}

void quitOnStopSignal(StopSignalNotifier& notifier, std::function<void(int)> exit) {
  if (!exit) exit = [](int code) { QCoreApplication::exit(code); };
  QObject::connect(&notifier, &StopSignalNotifier::stopRequested, &notifier, [exit](int signalNumber) {
    // The exit status is 128 + signal, not the 0 that closing the last window gives.
    QGuiApplication::setQuitOnLastWindowClosed(false);
    QApplication::closeAllWindows();
    // Queued: a stop signal handled before app.exec() started would otherwise be lost.
    QTimer::singleShot(0, qApp, [exit, signalNumber] { exit(128 + signalNumber); });
  });
}

}  // namespace pipescope::ui
