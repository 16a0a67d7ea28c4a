// A stand-in for a CUDA program under `pipescope record`, for the CPU tests: it talks
// to the recorder exactly as libpipescope-inject.so does (the socket named in
// PIPESCOPE_RECORD_SOCKET, the translator, the wire, a sender that never raises
// SIGPIPE), with activity records it makes up instead of CUPTI's.
//
//   record_test_child steps N          N iterations (an NVTX range, a launch, a kernel, a copy), then exit 0
//   record_test_child crash            two iterations sent, then abort() (no end message)
//   record_test_child spawn M          M copies of "steps 2" as child processes, and "steps 1" itself
//   record_test_child linger SECONDS   sends a round every 20 ms; exits 0 once a send failed (the
//                                      recording stopped), 3 if none failed in that time
//   record_test_child garbage          a hello, then bytes that are no message
//   record_test_child exit CODE        exits with CODE without connecting (a program that never used CUDA)
//   record_test_child inject LIBRARY   loads LIBRARY and calls its InitializeInjection, as the CUDA driver
//                                      does at cuInit, then NVTX's entry point; exits 0 if the calls returned
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "record/ActivityTranslator.h"
#include "record/WireSender.h"

extern char** environ;

using namespace pipescope;
using namespace pipescope::record;

namespace {

std::int64_t now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Session {
  WireSender sender;
  ActivityTranslator translator{{std::int64_t(getpid()), "record_test_child"}};
  wire::Encoder out;
  std::uint32_t correlation = 1;
  std::uint32_t marker = 1;

  bool open() {
    const char* path = std::getenv(wire::kSocketVariable);
    if (!path || !sender.connect(path)) {
      std::fprintf(stderr, "record_test_child: %s\n", path ? sender.stopReason().c_str() : "no socket variable");
      return false;
    }
    wire::Hello h;
    h.pid = getpid();
    h.parentPid = getppid();
    h.clockNs = now();
    h.processName = "record_test_child";
    h.timing = "CLOCK_MONOTONIC (test)";
    out.add(h);
    translator.device({0, "Test GPU", 9, 0, 1ull << 34, 8, 2});
    return true;
  }
  void iteration() {
    const std::int64_t t = now();
    MarkerRecord start{MarkerRecord::Point::Start, marker, t, 1, "iteration"};
    translator.marker(start);
    translator.threadSighting({correlation, std::int64_t(getpid()), "record_test_child"});
    translator.api({false, "cudaMemcpyAsync", t + 1000, t + 3000, 1, correlation});
    GpuRecord c;
    c.kind = GpuRecord::Kind::Copy;
    c.direction = GpuRecord::Direction::HostToDevice;
    c.hostMemory = GpuRecord::HostMemory::Pinned;
    c.start = t + 4000;
    c.end = t + 14000;
    c.stream = 7;
    c.context = 1;
    c.correlation = correlation++;
    c.bytes = 1 << 20;
    translator.gpu(c);
    translator.api({false, "cudaLaunchKernel", t + 5000, t + 7000, 1, correlation});
    GpuRecord k;
    k.kind = GpuRecord::Kind::Kernel;
    k.name = "test_kernel";
    k.start = t + 15000;
    k.end = t + 45000;
    k.stream = 7;
    k.context = 1;
    k.correlation = correlation++;
    translator.gpu(k);
    translator.marker({MarkerRecord::Point::End, marker++, t + 50000, 1, {}});
  }
  bool round() {
    translator.endRound(out);
    return sender.send(out.take());
  }
  void finish() {
    translator.finish(out);
    out.add(wire::End{translator.opsSent(), 0, "exit"});
    sender.send(out.take());
    sender.close();
  }
};

int steps(int n) {
  Session s;
  if (!s.open()) return 4;
  for (int i = 0; i < n; ++i) {
    s.iteration();
    s.round();
  }
  s.finish();
  return 0;
}

pid_t spawnSelf(const char* self, std::vector<std::string> args) {
  std::vector<char*> argv{const_cast<char*>(self)};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  posix_spawn(&pid, self, nullptr, nullptr, argv.data(), environ);
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const int arg = argc > 2 ? std::atoi(argv[2]) : 0;
  if (mode == "steps") return steps(arg);
  if (mode == "exit") return arg;
  if (mode == "crash") {
    Session s;
    if (!s.open()) return 4;
    for (int i = 0; i < 2; ++i) {
      s.iteration();
      s.round();
    }
    std::abort();
  }
  if (mode == "spawn") {
    std::vector<pid_t> children;
    for (int i = 0; i < arg; ++i) children.push_back(spawnSelf(argv[0], {"steps", "2"}));
    const int own = steps(1);
    int worst = own;
    for (pid_t c : children) {
      int status = 0;
      waitpid(c, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) worst = 5;
    }
    return worst;
  }
  if (mode == "linger") {
    Session s;
    if (!s.open()) return 4;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(arg);
    bool failed = false;
    while (std::chrono::steady_clock::now() < until) {
      s.iteration();
      if (!s.round()) {
        failed = true;
        std::fprintf(stderr, "record_test_child: sending stopped: %s\n", s.sender.stopReason().c_str());
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return failed ? 0 : 3;
  }
  if (mode == "garbage") {
    Session s;
    if (!s.open()) return 4;
    s.round();
    s.sender.send(std::string(64, '\x7F'));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 0;
  }
  if (mode == "inject" && argc > 2) {
    void* lib = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      std::fprintf(stderr, "record_test_child: %s\n", dlerror());
      return 6;
    }
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    auto nvtx = reinterpret_cast<int (*)(const void*)>(dlsym(lib, "InitializeInjectionNvtx2"));
    if (init == nullptr || nvtx == nullptr) return 7;
    std::printf("InitializeInjection returned %d\n", init());
    return 0;
  }
  std::fprintf(stderr, "record_test_child: unknown mode '%s'\n", mode.c_str());
  return 2;
}
