#include "record/RecordingAnalysis.h"

#include <algorithm>

#include "io/IterationDetection.h"

namespace pipescope::record {

std::shared_ptr<Trace> analysedRecording(const Trace& recording, const ImportOptions& options) {
  auto out = std::make_shared<Trace>();
  for (const Lane& l : recording.lanes()) out->lane(l.kind, l.index, l.name);
  const std::vector<std::string> names = recording.names();
  for (std::size_t i = 1; i < names.size(); ++i) out->internName(names[i]);
  out->setDevice(recording.device());
  out->setOutcome(recording.outcome());

  std::vector<Op> ops;
  const TraceView view = recording.ops().snapshot();
  ops.reserve(view.size());
  view.forEach([&](const Op& op) { ops.push_back(op); });
  std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.start < b.start; });
  for (Op& op : ops) op.batch = kNoBatch;
  IterationInfo iterations = assignIterations(ops, names, options.iterations);
  if (options.batchSize > 0) {
    iterations.samplesPerIteration = options.batchSize;
    iterations.samplesSource = "--batch-size";
  }
  out->setCompletedBatches(iterations.count);
  out->setIterations(std::move(iterations));
  for (const Op& op : ops) out->ops().append(op);
  out->ops().publish();
  return out;
}

}  // namespace pipescope::record
