// The reference for the desktop app's first frame in bench/startup_bench.cpp: a bare
// QApplication showing an empty QMainWindow, built by this project with the same Qt.
// It reports its first frame exactly as `pipescope --measure-startup` does
// (ui/app/StartupProbe.cpp): CLOCK_MONOTONIC once the first paint's frame is done,
// and the resident memory and CPU time at that moment.
#include <sys/resource.h>
#include <QApplication>
#include <QEvent>
#include <QMainWindow>
#include <QTimer>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

namespace {

long long monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double cpuMs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

long long residentKb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long long kb = 0;
  while (status >> key)
    if (key == "VmRSS:" && status >> kb) return kb;
  return 0;
}

class FirstFrame : public QObject {
 public:
  explicit FirstFrame(QWidget* window) : QObject(window), window_(window) { window_->installEventFilter(this); }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == window_ && event->type() == QEvent::Paint && !seen_) {
      seen_ = true;
      QTimer::singleShot(0, this, [] {
        std::printf("first-frame-monotonic-ns %lld\nrss-at-first-frame-kb %lld\ncpu-at-first-frame-ms %.3f\n",
                    monotonicNs(), residentKb(), cpuMs());
        std::fflush(stdout);
        QCoreApplication::exit(0);
      });
    }
    return false;
  }

 private:
  QWidget* window_;
  bool seen_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QMainWindow window;
  window.resize(1600, 1000);  // the main window's default size
  new FirstFrame(&window);
  window.show();
  return app.exec();
}
