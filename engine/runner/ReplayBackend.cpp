#include "runner/ReplayBackend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "analysis/AnalysisFormat.h"

namespace pipescope {

namespace {

class ReplayBackend final : public Backend {
 public:
  ReplayBackend(std::shared_ptr<const Trace> recorded, double slowdown)
      : recorded_(std::move(recorded)), slowdown_(std::max(slowdown, 0.0)) {}

  std::string_view kind() const override { return "replay"; }

  DeviceInfo describe() const override {
    // The recorded device, unchanged where figures depend on it; the note says what this is.
    DeviceInfo d = recorded_->device();
    std::string note = "replay of a recorded run";
    if (slowdown_ > 0) note += ", " + formatRatio(slowdown_) + " slower than it ran";
    d.note = d.note.empty() ? note : note + "; " + d.note;
    return d;
  }

  RunOutcome run(const PipelineConfig& /*config: the recorded one is replayed*/, Trace& trace,
                 RunControl& control) override {
    // Lanes and names first, in their recorded order, so op lane and name indices stay valid.
    for (const Lane& l : recorded_->lanes()) trace.lane(l.kind, l.index, l.device, l.name);
    // Every GPU of the recording; the first as describe() gave it (with the replay note).
    std::vector<DeviceInfo> devices = recorded_->devices();
    devices.front() = trace.device();
    trace.setDevices(std::move(devices));
    const auto names = recorded_->names();
    for (std::size_t i = 1; i < names.size(); ++i) trace.internName(names[i]);

    std::vector<Op> ops;
    recorded_->ops().snapshot().forEach([&](const Op& op) { ops.push_back(op); });
    // An op appears once it has ended, as the live backends publish completed work.
    std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.end < b.end; });
    // A batch counts as completed when its last op has ended.
    std::vector<std::int64_t> batchEnds;
    {
      std::vector<std::int64_t> last;
      for (const Op& op : ops) {
        if (op.batch < 0) continue;
        if (std::size_t(op.batch) >= last.size()) last.resize(std::size_t(op.batch) + 1, -1);
        last[std::size_t(op.batch)] = std::max(last[std::size_t(op.batch)], op.end);
      }
      for (auto e : last)
        if (e >= 0) batchEnds.push_back(e);
      std::sort(batchEnds.begin(), batchEnds.end());
      // Never report more batches than the recording completed (a stopped run).
      batchEnds.resize(std::min<std::size_t>(batchEnds.size(), std::size_t(recorded_->completedBatches())));
    }
    const std::int64_t origin = ops.empty() ? 0 : std::min_element(ops.begin(), ops.end(), [](const Op& a, const Op& b) {
                                                    return a.start < b.start;
                                                  })->start;

    const auto wallStart = std::chrono::steady_clock::now();
    std::size_t next = 0, batches = 0;
    while (next < ops.size()) {
      if (control.stopRequested()) {
        trace.ops().publish();
        return {RunState::Stopped, {}};
      }
      // Recorded time reached by now (all of it when not slowed down).
      std::int64_t reached = ops.back().end;
      if (slowdown_ > 0) {
        const double wallNs = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wallStart).count();
        reached = origin + std::int64_t(wallNs / slowdown_);
      }
      while (next < ops.size() && ops[next].end <= reached) trace.ops().append(ops[next++]);
      while (batches < batchEnds.size() && batchEnds[batches] <= reached) ++batches;
      trace.setCompletedBatches(std::int64_t(batches));
      trace.ops().publish();
      if (next < ops.size()) {
        // Wake for the next op's end, but at least every 10 ms to notice a stop.
        const double waitNs = double(ops[next].end - reached) * slowdown_;
        std::this_thread::sleep_for(std::chrono::nanoseconds(std::int64_t(std::clamp(waitNs, 1e5, 1e7))));
      }
    }
    trace.setCompletedBatches(recorded_->completedBatches());
    trace.ops().publish();
    const RunOutcome recorded = recorded_->outcome();
    return recorded.state == RunState::Finished ? RunOutcome{RunState::Finished, "replayed"} : recorded;
  }

 private:
  std::shared_ptr<const Trace> recorded_;
  double slowdown_;
};

}  // namespace

std::unique_ptr<Backend> makeReplayBackend(std::shared_ptr<const Trace> recorded, double slowdown) {
  return std::make_unique<ReplayBackend>(std::move(recorded), slowdown);
}

}  // namespace pipescope
