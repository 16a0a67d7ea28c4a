// libpipescope-inject.so: what `pipescope record` puts into a program through CUDA's
// injection hook. The CUDA driver loads it at cuInit (CUDA_INJECTION64_PATH) and
// calls InitializeInjection; NVTX loads it at the first NVTX call
// (NVTX_INJECTION64_PATH) and its InitializeInjectionNvtx2 hands NVTX on to CUPTI,
// which turns the ranges into marker records.
//
// A session connects to the recorder's socket (PIPESCOPE_RECORD_SOCKET), says hello,
// and on its own thread turns CUPTI's records into wire messages every round (100 ms)
// until the process exits (atexit: the last records and the end message) or the
// recorder goes away (then CUPTI is switched off and the program runs on as if never
// recorded). Nothing here may harm the program: every failure becomes a note to the
// recorder or, when there is no recorder to tell, one line on standard error.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <cupti.h>

#include "inject/CuptiSource.h"
#include "record/ActivityTranslator.h"
#include "record/WireEncoder.h"
#include "record/WireSender.h"

#define PIPESCOPE_EXPORT extern "C" __attribute__((visibility("default")))

namespace pipescope::inject {

namespace {

constexpr auto kRound = std::chrono::milliseconds(100);

std::string readFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string processName() {
  std::string name = readFile("/proc/self/comm");
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name;
}

std::string commandLine() {
  std::string cmd = readFile("/proc/self/cmdline");
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd)
    if (c == '\0') c = ' ';
  return cmd;
}

class Session {
 public:
  static Session& instance() {
    static Session* s = new Session;  // never destroyed: atexit and CUPTI may still call in
    return *s;
  }

  void begin() {
    if (started_.exchange(true)) return;
    pid_ = ::getpid();
    const char* socket = std::getenv(wire::kSocketVariable);
    if (socket == nullptr || *socket == '\0') {
      std::fprintf(stderr,
                   "pipescope-inject: %s is not set, so there is no recorder to send to; this process is not "
                   "recorded (start programs with 'pipescope-cli record -- PROGRAM')\n",
                   wire::kSocketVariable);
      return;
    }
    if (!sender_.connect(socket)) {
      std::fprintf(stderr, "pipescope-inject: pid %d is not recorded: %s\n", int(pid_), sender_.stopReason().c_str());
      return;
    }
    record::ActivityTranslator::Options options;
    options.pid = pid_;
    options.processName = processName();
    if (const char* d = std::getenv(wire::kDeviceVariable); d && *d) options.onlyDevice = std::atoi(d);
    translator_ = std::make_unique<record::ActivityTranslator>(options);

    wire::Encoder hello;
    wire::Hello h;
    h.pid = pid_;
    h.parentPid = ::getppid();
    h.clockNs = monotonicNowNs();
    h.processName = options.processName;
    h.commandLine = commandLine();
    std::vector<wire::Note> notes;
    std::string whyNot;
    const bool cupti = CuptiSource::instance().start(whyNot, notes);
    h.cuptiVersion = CuptiSource::instance().version();
    h.timing = CuptiSource::instance().timing();
    hello.add(h);
    for (const auto& n : notes) hello.add(n);
    if (!cupti) {
      hello.add(wire::Note{wire::Note::Error, whyNot});
      hello.add(wire::End{0, 0, "not recorded: " + whyNot});
      sender_.send(hello.take());
      sender_.close();
      return;
    }
    if (!sender_.send(hello.take())) {
      CuptiSource::instance().stop();
      return;
    }
    running_ = true;
    std::atexit([] { Session::instance().end("exit"); });
    pthread_atfork(nullptr, nullptr, [] { Session::instance().forgetAfterFork(); });
    thread_ = std::thread([this] { loop(); });
  }

  /// The process is exiting: the last records and the end message.
  void end(const char* reason) {
    if (::getpid() != pid_ || forked_) return;  // a fork()ed child runs its parent's atexit handlers
    {
      std::lock_guard lock(wakeMutex_);
      if (!running_) return;
      running_ = false;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (!sender_.active()) return;
    CuptiSource& cupti = CuptiSource::instance();
    cupti.flush(/*forced=*/true);
    cupti.drainInto(*translator_);
    translator_->finish(out_);
    if (const std::uint64_t dropped = cupti.droppedRecords(); dropped > 0)
      out_.add(wire::Note{wire::Note::Warning, "CUPTI dropped " + std::to_string(dropped) +
                                                   " records (its buffers were full); the recording misses them"});
    out_.add(wire::End{translator_->opsSent(), cupti.droppedRecords(), reason});
    sender_.send(out_.take());
    sender_.close();
    cupti.stop();
  }

 private:
  void loop() {
    CuptiSource& cupti = CuptiSource::instance();
    std::unique_lock lock(wakeMutex_);
    while (running_) {
      wake_.wait_for(lock, kRound, [this] { return !running_; });
      if (!running_) break;
      lock.unlock();
      cupti.flush(/*forced=*/false);
      cupti.drainInto(*translator_);
      translator_->endRound(out_);
      cupti.settleThreadNaming();
      const bool sent = out_.empty() || sender_.send(out_.take());
      lock.lock();
      if (!sent) {
        // The recorder is gone or stopped: the program goes on unrecorded, and pays
        // nothing more for it.
        running_ = false;
        lock.unlock();
        cupti.stop();
        cupti.drainInto(*translator_);  // frees what was queued
        out_ = wire::Encoder();
        lock.lock();
        break;
      }
    }
  }

  void forgetAfterFork() {
    // The child of a fork() has no injection thread and must not write into its
    // parent's stream; if it uses CUDA after an exec, it is recorded on its own.
    forked_ = true;
    sender_.abandonAfterFork();
  }

  std::atomic<bool> started_{false};
  pid_t pid_ = 0;
  bool forked_ = false;
  record::WireSender sender_;
  std::unique_ptr<record::ActivityTranslator> translator_;
  wire::Encoder out_;
  std::mutex wakeMutex_;
  std::condition_variable wake_;
  bool running_ = false;
  std::thread thread_;
};

/// CUPTI's own NVTX entry point, found in the libcupti this library was linked with.
template <typename F>
F cuptiEntryPoint(const char* name) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) == 0 || info.dli_fname == nullptr) return nullptr;
  void* handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  return reinterpret_cast<F>(dlsym(handle, name));
}

bool recording() {
  const char* socket = std::getenv(wire::kSocketVariable);
  return socket != nullptr && *socket != '\0';
}

}  // namespace

}  // namespace pipescope::inject

/// The CUDA driver's injection entry point (CUDA_INJECTION64_PATH): 1 = success. It
/// always succeeds, so that nothing here can stop the program from using CUDA.
PIPESCOPE_EXPORT int InitializeInjection(void) {
  pipescope::inject::Session::instance().begin();
  return 1;
}

/// NVTX's injection entry points (NVTX_INJECTION64_PATH), handed on to CUPTI. Without
/// a recorder they decline (0), and NVTX calls stay no-ops.
PIPESCOPE_EXPORT int InitializeInjectionNvtx2(const void* exportTable) {
  using Init = int (*)(const void*);
  if (!pipescope::inject::recording()) return 0;
  static const Init cupti = pipescope::inject::cuptiEntryPoint<Init>("InitializeInjectionNvtx2");
  return cupti ? cupti(exportTable) : 0;
}

PIPESCOPE_EXPORT int InitializeInjectionNvtx(void* exportTable) {
  using Init = int (*)(void*);
  if (!pipescope::inject::recording()) return 0;
  static const Init cupti = pipescope::inject::cuptiEntryPoint<Init>("InitializeInjectionNvtx");
  return cupti ? cupti(exportTable) : 0;
}
