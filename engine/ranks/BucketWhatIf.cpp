#include "ranks/BucketWhatIf.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>

#include "analysis/AnalysisFormat.h"
#include "metrics/Intervals.h"
#include "ranks/CollectiveMatch.h"
#include "ranks/RankWork.h"
#include "sim/InterconnectCosts.h"

namespace pipescope {

namespace {

constexpr double kBackwardShare = 2.0 / 3.0;

bool isAllReduce(const std::string& type) { return type == "AllReduce"; }

std::string bytesText(double b) {
  char s[32];
  if (b >= 1024.0 * 1024.0)
    std::snprintf(s, sizeof s, "%.1f MiB", b / (1024.0 * 1024.0));
  else
    std::snprintf(s, sizeof s, "%.0f KiB", b / 1024.0);
  return s;
}

// Each matched all-reduce's time on the rank that arrived last: it did not wait in it.
std::vector<std::pair<double, double>> allReduceSamples(const Trace& trace, const RankAnalysis& analysis) {
  std::vector<std::vector<CollectiveCall>> calls;
  for (const RankFigures& r : analysis.ranks) calls.push_back(collectiveCalls(trace, 0, r.device));
  std::vector<std::pair<double, double>> samples;
  for (const MatchedCollective& c : matchCollectives(calls).calls) {
    if (!isAllReduce(c.type) || c.bytes == 0) continue;
    const auto [lo, hi] = std::minmax_element(c.end.begin(), c.end.end());
    if (*hi - *lo > kMaxCollectiveEndSkewNs) continue;  // not one call (RankAnalysis leaves it out too)
    const std::size_t last = std::size_t(std::max_element(c.start.begin(), c.start.end()) - c.start.begin());
    samples.emplace_back(double(c.bytes), double(c.end[last] - c.start[last]));
  }
  return samples;
}

}  // namespace

// The change from the trace's own buckets, on top of what it measured: what the model
// does not explain (waiting for other ranks, contention) stays as it was.
BucketPrediction predictWithBuckets(const BucketWhatIf& w, int buckets) {
  const BucketSchedule s = scheduleBuckets(w.backwardNs, w.gradientBytes, buckets, w.cost);
  const double change = s.exposedNs - w.modelledExposedNs;
  return {buckets, std::max(0.0, w.stepNs + change), std::max(0.0, w.measuredExposedNs + change), s.communicationNs};
}

AllReduceCost fitAllReduceCost(const std::vector<std::pair<double, double>>& samples) {
  AllReduceCost cost;
  if (samples.size() < 2) return cost;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : samples) n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  const double det = n * sxx - sx * sx;
  if (det <= 0) return cost;  // every call the same size: no slope to read
  cost.nsPerByte = (n * sxy - sx * sy) / det;
  cost.latencyNs = (sy - cost.nsPerByte * sx) / n;
  if (cost.latencyNs < 0) cost.latencyNs = 0, cost.nsPerByte = sxy / sxx;  // through the origin
  if (cost.nsPerByte <= 0) cost = {};
  return cost;
}

BucketSchedule scheduleBuckets(double backwardNs, double bytes, int buckets, const AllReduceCost& cost) {
  BucketSchedule s;
  buckets = std::max(1, buckets);
  const double each = cost.ns(bytes / buckets);
  double free = 0;  // when the NCCL stream is done with the previous bucket
  for (int j = 0; j < buckets; ++j) {
    const double ready = backwardNs * double(j + 1) / double(buckets);
    free = std::max(free, ready) + each;
    s.communicationNs += each;
  }
  s.exposedNs = std::max(0.0, free - backwardNs);
  return s;
}

BucketWhatIf predictBuckets(const Trace& trace, const RankAnalysis& analysis, const std::vector<int>& buckets) {
  BucketWhatIf w;
  w.gpus = int(analysis.ranks.size());
  if (analysis.ranks.size() < 2) {
    w.why = "the what-if with K buckets needs the traces of several ranks of a data-parallel job";
    return w;
  }
  // The critical rank: the one that waits least for the others.
  const RankFigures& critical = *std::min_element(
      analysis.ranks.begin(), analysis.ranks.end(),
      [](const RankFigures& a, const RankFigures& b) { return a.waitedForOthersNs < b.waitedForOthersNs; });
  w.rank = critical.rank;
  w.stepNs = critical.iterationMeanNs;

  // Its compute kernels, all and by step; its all-reduces by step.
  const auto lanes = trace.lanes();
  const auto names = trace.names();
  Intervals compute;
  std::map<std::int32_t, Intervals> computeOfStep;
  trace.ops().snapshot().forEach([&](const Op& op) {
    if (op.lane >= lanes.size() || lanes[op.lane].device != critical.device) return;
    if (rankWorkOf(op, lanes[op.lane], op.name < names.size() ? names[op.name] : names.front()) != RankWork::Compute)
      return;
    compute.push_back({op.start, op.end});
    if (op.batch >= 0) computeOfStep[op.batch].push_back({op.start, op.end});
  });
  compute = mergeIntervals(std::move(compute));
  struct Step {
    Intervals allReduces;
    double bytes = 0;
    std::int64_t lastStart = 0;
    bool sized = true;  // every all-reduce's bytes known (not one launched before the profiler started)
  };
  std::map<std::int32_t, Step> steps;
  for (const CollectiveCall& c : collectiveCalls(trace, 0, critical.device)) {
    if (!isAllReduce(c.type) || c.batch < 0) continue;
    Step& s = steps[c.batch];
    s.allReduces.push_back({c.start, c.end});
    s.bytes += double(c.bytes);
    s.lastStart = std::max(s.lastStart, c.start);
    s.sized = s.sized && c.bytes > 0;
  }
  std::erase_if(steps, [](const auto& step) { return !step.second.sized; });
  if (steps.empty() || w.stepNs <= 0) {
    w.why = "rank " + std::to_string(w.rank) +
            " has no step whose all-reduces say their size (PyTorch's \"In msg nelems\" and \"dtype\"): no "
            "gradients to bucket";
    return w;
  }
  double calls = 0, exposed = 0, communication = 0, forwardBackward = 0;
  for (auto& [batch, s] : steps) {
    calls += double(s.allReduces.size());
    w.gradientBytes += s.bytes;
    const Intervals merged = mergeIntervals(std::move(s.allReduces));
    exposed += totalLength(subtractMerged(merged, compute));
    communication += totalLength(merged);
    // The compute the last bucket waited for: the step's forward and backward.
    const Intervals before = intersectMerged(mergeIntervals(std::move(computeOfStep[batch])),
                                             Intervals{{std::numeric_limits<std::int64_t>::min(), s.lastStart}});
    forwardBackward += totalLength(before);
  }
  const double n = double(steps.size());
  w.steps = steps.size();
  w.measuredBuckets = int(calls / n + 0.5);
  w.gradientBytes /= n;
  w.measuredExposedNs = exposed / n;
  w.measuredCommunicationNs = communication / n;
  w.backwardNs = kBackwardShare * forwardBackward / n;

  const auto samples = allReduceSamples(trace, analysis);
  w.fitCalls = samples.size();
  w.cost = fitAllReduceCost(samples);
  if (w.cost.nsPerByte <= 0) {
    w.why = "the all-reduces matched on every rank (" + std::to_string(samples.size()) +
            ") are too few or all of one size to read a cost per byte from";
    return w;
  }
  // The same line as the ring model at n ranks (sim/InterconnectCosts.h).
  const double steps2 = 2.0 * (w.gpus - 1);
  w.ringStepLatencyNs = w.cost.latencyNs / steps2;
  w.busGBps = allreduceBusGBpsOf(1'000'000'000ull, w.gpus, w.cost.ns(1e9) - w.cost.latencyNs);

  const BucketSchedule now = scheduleBuckets(w.backwardNs, w.gradientBytes, w.measuredBuckets, w.cost);
  w.modelledExposedNs = now.exposedNs;
  w.modelledCommunicationNs = now.communicationNs;
  for (int k : buckets) w.predictions.push_back(predictWithBuckets(w, k));
  w.assumptions = {
      "gradients split into K buckets of equal bytes (" + bytesText(w.gradientBytes) + " a step in all)",
      "bucket j is all-reduced once (j+1)/K of the backward is done, one bucket at a time; the backward is 2/3 of "
      "the step's compute before its last all-reduce (" +
          formatNs(w.backwardNs) + ")",
      "an all-reduce takes " + formatNs(w.cost.latencyNs) + " + its bytes at " + formatNs(w.cost.nsPerByte * 1e6) +
          " per MB (ring: 2(n-1) steps of " + formatNs(w.ringStepLatencyNs) + ", bus bandwidth " +
          std::to_string(int(w.busGBps + 0.5)) + " GB/s), fitted to " + std::to_string(w.fitCalls) +
          " all-reduces of this trace, each on the rank that arrived last",
      "of the measured exposed communication, " + formatNs(w.modelledExposedNs) +
          " is the all-reduces running past the backward at " + std::to_string(w.measuredBuckets) +
          " buckets; the rest (waiting for other ranks) and the rest of the step (host work, forward, optimizer) "
          "stay as measured",
      "the compute is not slowed by the all-reduces running beside it"};
  return w;
}

std::vector<int> parseBucketsWhatIf(const std::string& text) {
  const std::string prefix = "buckets=";
  if (text.rfind(prefix, 0) != 0)
    throw std::invalid_argument("'" + text + "': the what-if is buckets=K or buckets=K,K,... (e.g. buckets=1,2,4,8)");
  std::vector<int> out;
  std::size_t from = prefix.size();
  while (true) {
    const std::size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value < 1 || value > kMaxWhatIfBuckets)
      throw std::invalid_argument("'" + text + "': bucket count '" + item + "' is not a whole number in 1.." +
                                  std::to_string(kMaxWhatIfBuckets));
    if (std::find(out.begin(), out.end(), int(value)) == out.end()) out.push_back(int(value));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

std::string formatBucketWhatIf(const BucketWhatIf& w) {
  if (!w.ok()) return "What if, with K buckets: no prediction: " + w.why + "\n";
  std::string out = "What if, with K buckets (rank " + std::to_string(w.rank) + "'s steps, the critical rank; " +
                    std::to_string(w.steps) + " steps measured)\n";
  auto cell = [](std::string s, std::size_t width) {
    std::size_t chars = 0;
    for (unsigned char c : s) chars += (c & 0xC0) != 0x80;
    return s + std::string(width > chars ? width - chars : 1, ' ');
  };
  auto row = [&](const std::string& label, double step, double exposed, const std::string& comm) {
    return "  " + cell(label, 22) + cell(formatNs(step), 12) + cell(formatNs(exposed), 15) + comm + "\n";
  };
  out += "  " + cell("buckets", 22) + cell("step", 12) + cell("exposed comm", 15) + "all-reduce time\n";
  out += row(std::to_string(w.measuredBuckets) + " (measured)", w.stepNs, w.measuredExposedNs,
             formatNs(w.measuredCommunicationNs));
  for (const BucketPrediction& p : w.predictions)
    out += row(std::to_string(p.buckets), p.stepNs, p.exposedNs, formatNs(p.communicationNs));
  out += "  Assumes:\n";
  for (const std::string& a : w.assumptions) out += "    - " + a + "\n";
  return out;
}

nlohmann::json bucketWhatIfJson(const BucketWhatIf& w) {
  if (!w.ok()) return {{"why_none", w.why}};
  auto prediction = [](const BucketPrediction& p) {
    return nlohmann::json{{"buckets", p.buckets},
                          {"step_ns", p.stepNs},
                          {"exposed_communication_ns", p.exposedNs},
                          {"all_reduce_ns", p.communicationNs}};
  };
  nlohmann::json predictions = nlohmann::json::array();
  for (const BucketPrediction& p : w.predictions) predictions.push_back(prediction(p));
  return {{"rank", w.rank},
          {"steps", w.steps},
          {"measured",
           {{"buckets", w.measuredBuckets},
            {"step_ns", w.stepNs},
            {"exposed_communication_ns", w.measuredExposedNs},
            {"all_reduce_ns", w.measuredCommunicationNs}}},
          {"model_at_measured",
           {{"exposed_communication_ns", w.modelledExposedNs}, {"all_reduce_ns", w.modelledCommunicationNs}}},
          {"gradient_bytes", w.gradientBytes},
          {"backward_ns", w.backwardNs},
          {"all_reduce_cost",
           {{"latency_ns", w.cost.latencyNs},
            {"ns_per_byte", w.cost.nsPerByte},
            {"ring_step_latency_ns", w.ringStepLatencyNs},
            {"bus_gbps", w.busGBps},
            {"fitted_calls", w.fitCalls}}},
          {"predictions", std::move(predictions)},
          {"assumptions", w.assumptions}};
}

}  // namespace pipescope
