// Opening the traces of a job's ranks against opening its largest rank file alone
// (target: a folder of 4 ranks x 12 steps opens in at most 2x the time of its largest
// rank file, measured in the same run).
//
// Both opens take the desktop app's path up to the first frame of the timeline: the
// load task's engine calls (loadRanks' two steps for a folder of ranks, reading the
// files and merging them, the merge timed on its own; loadTraceFile for one file), then, as MainWindow::showOpenedTrace
// does on the GUI thread, the timeline (index, folded lanes, layout, fit), the run's figures, and one frame painted.
// The two alternate, so a load on the machine hits both alike; the median of each is printed with the ratio.
//
// Run offscreen: QT_QPA_PLATFORM=offscreen build/release/bench/ui_rank_open_bench DIR [REPEATS]
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "charts/ThroughputCharts.h"
#include "io/TraceFiles.h"
#include "ranks/RankFiles.h"
#include "ranks/RankMerge.h"
#include "run/FiguresWorker.h"
#include "timeline/TimelineView.h"
#include "trace/Trace.h"

namespace {

using namespace pipescope;
using namespace pipescope::ui;

constexpr QSize kTimeline{1600, 900};  // the timeline of a 1920x1080 window

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Opened {
  double seconds = 0, loadSeconds = 0, cpuSeconds = 0;
  double timelineSeconds = 0, figuresSeconds = 0, paintSeconds = 0;  // CPU, after the load, on the GUI thread
  std::uint64_t ops = 0;
  std::size_t lanes = 0;
};

/// What the window does with a loaded trace before its timeline shows it.
void show(const std::shared_ptr<Trace>& trace, TimelineView& timeline, QImage& frame, Opened& phases) {
  const double t0 = threadCpuSeconds();
  timeline.setLaneOrder(LaneOrder::GpuFirst);
  timeline.setTrace(trace);
  timeline.fit();
  const double t1 = threadCpuSeconds();
  const RunFigures figures = computeRunFigures(*trace, ThroughputCharts::kMaxPoints);
  if (figures.metrics.ops < 0) std::abort();  // keeps the figures from being optimised away
  const double t2 = threadCpuSeconds();
  QPainter p(&frame);
  timeline.renderTo(p, frame.rect());
  phases.timelineSeconds = t1 - t0;
  phases.figuresSeconds = t2 - t1;
  phases.paintSeconds = threadCpuSeconds() - t2;
}

template <typename Load>
Opened open(Load&& load, TimelineView& timeline, QImage& frame) {
  const double t0 = nowSeconds(), c0 = cpuSeconds();
  const std::shared_ptr<Trace> trace = load();
  const double t1 = nowSeconds();
  Opened out;
  show(trace, timeline, frame, out);
  out.seconds = nowSeconds() - t0;
  out.loadSeconds = t1 - t0;
  out.cpuSeconds = cpuSeconds() - c0;
  out.ops = trace->ops().publishedCount();
  out.lanes = trace->laneCount();
  timeline.setTrace(nullptr);  // freed after the clock stopped
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(const std::string& dir, int repeats) {
  const std::vector<std::string> files = rankFilesAt(dir);
  if (files.size() < 2) {
    std::fprintf(stderr, "%s: expected a folder with the traces of several ranks\n", dir.c_str());
    return 2;
  }
  const std::string largest = *std::max_element(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::filesystem::file_size(a) < std::filesystem::file_size(b);
  });

  TimelineView timeline;
  timeline.resize(kTimeline);
  QImage frame(kTimeline, QImage::Format_ARGB32_Premultiplied);
  double mergeCpu = 0, mergeWall = 0;  // of the last folder open
  const auto folder = [&] {
    RankSet set = loadRankFiles(files);
    const double c0 = cpuSeconds(), t0 = nowSeconds();  // all threads: the merge runs on several
    auto merged = mergeRanks(set, dir);
    mergeCpu = cpuSeconds() - c0;
    mergeWall = nowSeconds() - t0;
    return merged;
  };
  const auto single = [&] { return loadTraceFile(resolveTracePath(largest)); };

  // One untimed open of each first: files in the page cache, code paged in.
  Opened f = open(folder, timeline, frame), s = open(single, timeline, frame);
  std::vector<double> folderSeconds, singleSeconds, folderLoad, singleLoad, folderCpu, singleCpu, mergeCpus, mergeWalls;
  std::vector<double> phases[2][3];  // [folder, file][timeline, figures, paint]
  for (int i = 0; i < repeats; ++i) {
    f = open(folder, timeline, frame);
    s = open(single, timeline, frame);
    folderSeconds.push_back(f.seconds);
    singleSeconds.push_back(s.seconds);
    folderLoad.push_back(f.loadSeconds);
    singleLoad.push_back(s.loadSeconds);
    folderCpu.push_back(f.cpuSeconds);
    mergeCpus.push_back(mergeCpu);
    mergeWalls.push_back(mergeWall);
    for (int k = 0; k < 2; ++k) {
      const Opened& o = k == 0 ? f : s;
      phases[k][0].push_back(o.timelineSeconds);
      phases[k][1].push_back(o.figuresSeconds);
      phases[k][2].push_back(o.paintSeconds);
    }
    singleCpu.push_back(s.cpuSeconds);
  }
  const double fm = median(folderSeconds), sm = median(singleSeconds);
  std::printf("folder %s: %zu rank files, %llu ops, %zu lanes\n", dir.c_str(), files.size(), (unsigned long long)f.ops,
              f.lanes);
  std::printf("largest rank file %s: %.0f kB, %llu ops, %zu lanes\n", std::filesystem::path(largest).filename().c_str(),
              double(std::filesystem::file_size(largest)) / 1e3, (unsigned long long)s.ops, s.lanes);
  const double fc = median(folderCpu), sc = median(singleCpu), fl = median(folderLoad), sl = median(singleLoad);
  std::printf(
      "| median of %d | load, wall ms | open to first frame, wall ms | open, CPU ms (all threads) |\n"
      "| --- | ---: | ---: | ---: |\n",
      repeats);
  std::printf("| folder of %zu ranks | %.0f | %.0f | %.0f |\n", files.size(), fl * 1e3, fm * 1e3, fc * 1e3);
  std::printf("| largest rank file alone | %.0f | %.0f | %.0f |\n", sl * 1e3, sm * 1e3, sc * 1e3);
  std::printf("| ratio (target: open <= 2) | %.2f | %.2f | %.2f |\n", fl / sl, fm / sm, fc / sc);
  std::printf("merging the %zu ranks (part of the folder's load): %.1f ms wall, %.1f ms CPU\n", files.size(),
              median(mergeWalls) * 1e3, median(mergeCpus) * 1e3);
  std::printf("after the load, CPU ms (folder / file): timeline %.1f / %.1f, figures %.1f / %.1f, frame %.1f / %.1f\n",
              median(phases[0][0]) * 1e3, median(phases[1][0]) * 1e3, median(phases[0][1]) * 1e3,
              median(phases[1][1]) * 1e3, median(phases[0][2]) * 1e3, median(phases[1][2]) * 1e3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [REPEATS]   (DIR: one profiler trace per rank)\n", argv[0]);
    return 2;
  }
  try {
    QApplication app(argc, argv);
    return run(argv[1], argc > 2 ? std::max(1, std::atoi(argv[2])) : 15);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
