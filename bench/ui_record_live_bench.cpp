// The receiving half of "an op's end on the GPU to its block on screen" for a
// recording: from the moment a recorded process hands an op's record to the socket to
// the first frame of the real window's timeline that paints it.
//
// The bench is its own recorded program. The window records it through Run › Record a
// program… (RecordActions::start: the recorder's socket, reader thread, wire decoder,
// RecordAssembler and TraceAssembler, the live timeline), and the child, started with
// --replay-child, connects to PIPESCOPE_RECORD_SOCKET as libpipescope-inject.so does and
// sends, through the injection's own translator and wire encoder, what CUPTI reports of
// a ResNet-18 training loop on one GPU: 8 ms steps, each an NVTX range, two pinned
// H2D copies, KERNELS kernels launched half from the main thread and half from the
// autograd thread (cudaLaunchKernel each), a D2H copy of the loss and the
// cudaStreamSynchronize waiting for it. Like the injection it sends once per 100 ms
// round the ops that ended during the round. It logs, per round, when it handed the
// bytes to the socket and how many ops it had sent by then: op i's arrival is the first
// round whose count exceeds i. A frame log (as in ui_live_bench) notes per paint how
// many ops the timeline had indexed: op i is on screen at the first frame indexing more
// than i ops. Latency = frame - arrival, over every op after the warm-up.
//
// The other half (the op's end on the GPU to its record reaching pipescope: CUPTI's
// buffer hand-over and the injection's round) needs a GPU: `pipescope-cli record`
// prints it at the end of a recording ("GPU ops reached pipescope ... after they ended
// on the GPU").
//
// Argument: kernels per step (250: about what ResNet-18 at batch 32 launches, 64 k ops/s;
// 1000: a heavier model, 250 k ops/s).
//
// Run offscreen: QT_QPA_PLATFORM=offscreen build/release/bench/ui_record_live_bench
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <QApplication>
#include <QCoreApplication>
#include <QEvent>
#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "MainWindow.h"
#include "record/ActivityTranslator.h"
#include "record/WireSender.h"
#include "recording/RecordActions.h"
#include "timeline/TimelineView.h"

namespace {

using namespace pipescope;
using namespace pipescope::ui;
using Clock = std::chrono::steady_clock;

constexpr double kRecordSeconds = 5.0;
constexpr double kWarmupSeconds = 1.0;  // the first frames lay out the window
constexpr std::int64_t kStepNs = 8'000'000;
constexpr auto kRound = std::chrono::milliseconds(100);
constexpr const char* kSendLogVariable = "PIPESCOPE_BENCH_SEND_LOG";

std::int64_t monotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// ---------------------------------------------------------------- the recorded child

/// The records of one training step that starts at `t0` (monotonic ns).
void step(record::ActivityTranslator& t, std::int64_t t0, int kernels, std::uint32_t& correlation,
          std::uint32_t marker) {
  const auto pid = std::uint32_t(::getpid());
  const std::uint32_t autograd = pid + 1;
  t.marker({record::MarkerRecord::Point::Start, marker, t0, pid, "train step"});
  auto copy = [&](record::GpuRecord::Direction d, std::int64_t start, std::int64_t ns, std::uint32_t stream) {
    t.api({false, "cudaMemcpyAsync", start - 8'000, start - 4'000, pid, correlation});
    record::GpuRecord g;
    g.kind = record::GpuRecord::Kind::Copy;
    g.direction = d;
    g.hostMemory = record::GpuRecord::HostMemory::Pinned;
    g.start = start;
    g.end = start + ns;
    g.stream = stream;
    g.context = 1;
    g.correlation = correlation++;
    g.bytes = 1u << 20;
    t.gpu(g);
  };
  copy(record::GpuRecord::Direction::HostToDevice, t0 + 20'000, 60'000, 13);
  copy(record::GpuRecord::Direction::HostToDevice, t0 + 90'000, 10'000, 13);
  const std::int64_t kernelNs = (kStepNs - 400'000) / kernels;
  std::int64_t at = t0 + 120'000;
  for (int k = 0; k < kernels; ++k) {
    const std::uint32_t thread = k < kernels / 2 ? pid : autograd;
    t.api({false, "cudaLaunchKernel", at - 30'000, at - 26'000, thread, correlation});
    record::GpuRecord g;
    g.kind = record::GpuRecord::Kind::Kernel;
    g.name = k < kernels / 2 ? "void cudnn::cnn::conv2d_grouped_direct_kernel<float>(float const*, float*)"
                             : "void at::native::elementwise_kernel<128, 2>(int, at::native::Loops)";
    g.start = at;
    g.end = at + kernelNs - 1'000;
    g.stream = 7;
    g.context = 1;
    g.correlation = correlation++;
    t.gpu(g);
    at += kernelNs;
  }
  copy(record::GpuRecord::Direction::DeviceToHost, at + 5'000, 5'000, 7);
  t.api({false, "cudaStreamSynchronize", at, at + 12'000, pid, correlation++});
  t.marker({record::MarkerRecord::Point::End, marker, t0 + kStepNs - 1'000, pid, {}});
}

int replayChild(int kernels) {
  const char* socket = std::getenv(wire::kSocketVariable);
  const char* logPath = std::getenv(kSendLogVariable);
  record::WireSender sender;
  if (!socket || !logPath || !sender.connect(socket)) return 4;
  std::ofstream log(logPath);
  record::ActivityTranslator t({std::int64_t(::getpid()), "ui_record_live_bench"});
  wire::Encoder out;
  wire::Hello h;
  h.pid = ::getpid();
  h.parentPid = ::getppid();
  h.clockNs = monotonicNs();
  h.processName = "ui_record_live_bench";
  h.timing = "CLOCK_MONOTONIC (replay)";
  out.add(h);
  t.device({0, "NVIDIA H200 (replayed)", 9, 0, 141ull << 30, 132, 7});
  t.threadNamed(std::uint32_t(::getpid()), ::getpid(), "python3");
  t.threadNamed(std::uint32_t(::getpid()) + 1, ::getpid() + 1, "pt_autograd_0");
  std::uint32_t correlation = 1, marker = 1;
  const std::int64_t begin = monotonicNs();
  std::int64_t nextStep = begin;
  auto wake = Clock::now();
  while (monotonicNs() - begin < std::int64_t((kRecordSeconds + 1.0) * 1e9)) {
    wake += kRound;
    std::this_thread::sleep_until(wake);
    // The steps that ended during this round.
    while (nextStep + kStepNs <= monotonicNs()) {
      step(t, nextStep, kernels, correlation, marker++);
      nextStep += kStepNs;
    }
    t.endRound(out);
    if (!sender.send(out.take())) return 0;  // the recording stopped
    log << monotonicNs() << ' ' << t.opsSent() << '\n';
  }
  t.finish(out);
  out.add(wire::End{t.opsSent(), 0, "exit"});
  sender.send(out.take());
  log << monotonicNs() << ' ' << t.opsSent() << '\n';
  return 0;
}

// ---------------------------------------------------------------- the window

struct FrameLog : QObject {
  const TimelineView* view = nullptr;
  std::vector<std::pair<std::int64_t, std::uint64_t>> frames;  // (paint time, ops indexed)
  bool eventFilter(QObject* watched, QEvent* e) override {
    if (watched == view && e->type() == QEvent::Paint)
      frames.emplace_back(monotonicNs(), view->laneIndex().view().end());
    return false;
  }
};

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))];
}

std::string selfPath() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

void BM_RecordingOnScreen(benchmark::State& state) {
  const int kernels = int(state.range(0));
  double p50 = 0, p95 = 0, pmax = 0, fps = 0, opsPerSec = 0, measured = 0;
  for (auto _ : state) {
    MainWindow window(MainWindow::Options{false});
    window.resize(1600, 1000);
    window.show();
    FrameLog frames;
    frames.view = &window.timeline();
    frames.frames.reserve(8192);
    window.timeline().installEventFilter(&frames);

    const std::string sendLog = "/tmp/ui_record_live_bench." + std::to_string(::getpid()) + ".log";
    record::RecordRequest request;
    request.command = {selfPath(), "--replay-child", std::to_string(kernels)};
    request.injectLibrary = "/dev/null";  // the child speaks the wire itself
    request.environment[kSendLogVariable] = sendLog;
    request.ownProcessGroup = true;
    if (!window.recording().start(request)) {
      state.SkipWithError("the recording did not start");
      return;
    }
    window.timeline().setFollowLive(true);
    QEventLoop loop;
    QTimer waiter;
    QObject::connect(&waiter, &QTimer::timeout, &loop, [&] {
      if (!window.recording().recording()) loop.quit();
    });
    waiter.start(50);
    QTimer::singleShot(int((kRecordSeconds + 4) * 1000), &loop, &QEventLoop::quit);
    loop.exec();

    std::vector<std::pair<std::int64_t, std::uint64_t>> sends;  // (handed to the socket, ops sent by then)
    std::ifstream in(sendLog);
    std::int64_t loggedAt = 0;
    std::uint64_t loggedOps = 0;
    while (in >> loggedAt >> loggedOps) sends.emplace_back(loggedAt, loggedOps);
    std::remove(sendLog.c_str());
    if (sends.size() < 10 || frames.frames.empty()) {
      state.SkipWithError("the child sent too little or nothing was painted");
      return;
    }
    const std::int64_t t0 = sends.front().first + std::int64_t(kWarmupSeconds * 1e9);
    const std::int64_t t1 = sends[sends.size() - 2].first;  // before the final message
    std::vector<double> latencies;
    std::size_t f = 0;
    for (std::size_t r = 1; r + 1 < sends.size(); ++r) {
      const auto [sentAt, count] = sends[r];
      const std::uint64_t before = sends[r - 1].second;
      if (sentAt < t0 || count == before) continue;
      // The first frame at or after the send whose index holds this round's last op.
      while (f < frames.frames.size() && (frames.frames[f].first < sentAt || frames.frames[f].second < count)) ++f;
      if (f == frames.frames.size()) break;
      latencies.insert(latencies.end(), std::size_t(count - before), double(frames.frames[f].first - sentAt) / 1e6);
    }
    std::size_t framesIn = 0;
    for (const auto& fr : frames.frames) framesIn += fr.first >= t0 && fr.first <= t1;
    const double seconds = double(t1 - t0) / 1e9;
    fps = double(framesIn) / seconds;
    std::uint64_t opsIn = 0;
    for (std::size_t r = 1; r < sends.size() - 1; ++r)
      if (sends[r].first >= t0) opsIn += sends[r].second - sends[r - 1].second;
    opsPerSec = double(opsIn) / seconds;
    measured = double(latencies.size());
    p50 = percentile(latencies, 0.5);
    p95 = percentile(latencies, 0.95);
    pmax = latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end());
  }
  state.counters["ops_per_s"] = opsPerSec;
  state.counters["frames_per_s"] = fps;
  state.counters["ops_measured"] = measured;
  state.counters["arrival_to_frame_p50_ms"] = p50;
  state.counters["arrival_to_frame_p95_ms"] = p95;
  state.counters["arrival_to_frame_max_ms"] = pmax;
}
BENCHMARK(BM_RecordingOnScreen)->Arg(250)->Arg(1000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--replay-child") return replayChild(std::max(2, std::atoi(argv[2])));
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
