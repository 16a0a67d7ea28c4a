#pragma once
// "With K buckets": what a data-parallel job's step would take if DDP all-reduced its
// gradients in K equal buckets instead of the ones the trace shows, predicted from
// what the trace measured on the critical rank (the one that waits least for the
// others, so its step is the job's):
//   - the gradient bytes all-reduced per step and the backward pass they follow (the
//     step's compute before its last all-reduce, two thirds of it the backward: the
//     backward does about twice the forward's arithmetic);
//   - the cost of one all-reduce as a function of its bytes, the ring algorithm's
//     2(n-1) latency steps plus 2(n-1)/n of the bytes over the bus bandwidth, fitted to
//     the job's own all-reduces (each call's time on the rank that arrived last, which
//     did not wait inside it);
//   - the schedule of the simulator's data-parallel model (docs/simulator.md): bucket j
//     is all-reduced once its share (j+1)/K of the backward is done, one bucket at a
//     time on the NCCL stream, and what runs past the backward's end is exposed.
// The prediction is the change from the trace's own bucket count, on top of what it
// measured: everything the model does not hold (host work, forward, optimizer, waiting
// for other ranks) stays as it was:
//   predicted step(K) = measured step + modelled exposed(K) - modelled exposed(measured K).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ranks/RankAnalysis.h"
#include "trace/Trace.h"

namespace pipescope {

/// One all-reduce's time for `bytes` once every rank has joined: latencyNs + bytes x nsPerByte.
struct AllReduceCost {
  double latencyNs = 0;
  double nsPerByte = 0;
  double ns(double bytes) const { return latencyNs + bytes * nsPerByte; }
};

/// Least-squares line through (bytes, ns) samples, its latency kept >= 0. nsPerByte is 0
/// (no fit) with fewer than two samples or no growth with size.
AllReduceCost fitAllReduceCost(const std::vector<std::pair<double, double>>& bytesAndNs);

struct BucketSchedule {
  double communicationNs = 0;  ///< the K all-reduces' time
  double exposedNs = 0;        ///< past the backward's end
};

/// The simulator's data-parallel schedule for `bytes` of gradients in `buckets` equal
/// buckets behind a backward pass of `backwardNs` (times from the backward's start).
BucketSchedule scheduleBuckets(double backwardNs, double bytes, int buckets, const AllReduceCost& cost);

struct BucketPrediction {
  int buckets = 0;
  double stepNs = 0;
  double exposedNs = 0;
  double communicationNs = 0;
};

struct BucketWhatIf {
  std::string why;  ///< non-empty: no prediction, and why
  int rank = -1;    ///< the rank whose steps are modelled
  int gpus = 0;
  std::size_t steps = 0;               ///< steps measured (medians over them)
  int measuredBuckets = 0;             ///< all-reduces per step in the trace
  double gradientBytes = 0;            ///< all-reduced per step
  double stepNs = 0;                   ///< measured step period
  double measuredExposedNs = 0;        ///< measured exposed all-reduce time per step
  double measuredCommunicationNs = 0;  ///< measured all-reduce kernel time per step (waits included)
  double backwardNs = 0;
  std::size_t fitCalls = 0;  ///< all-reduces the cost was fitted to
  AllReduceCost cost;
  double ringStepLatencyNs = 0;        ///< the fit as the ring model: per step latency ...
  double busGBps = 0;                  ///< ... and bus bandwidth
  double modelledExposedNs = 0;        ///< the model at the trace's own bucket count: exposed ...
  double modelledCommunicationNs = 0;  ///< ... and all-reduce time
  std::vector<BucketPrediction> predictions;
  std::vector<std::string> assumptions;

  bool ok() const { return why.empty(); }
};

/// The bucket counts predicted when none are asked for.
inline const std::vector<int> kDefaultWhatIfBuckets = {1, 2, 4, 8};
inline constexpr int kMaxWhatIfBuckets = 1024;

/// `trace` a merged trace of ranks, `analysis` its analyzeRanks().
BucketWhatIf predictBuckets(const Trace& trace, const RankAnalysis& analysis,
                            const std::vector<int>& buckets = kDefaultWhatIfBuckets);

/// The prediction for `buckets` from a what-if already made (w.ok()).
BucketPrediction predictWithBuckets(const BucketWhatIf& w, int buckets);

/// Parses "buckets=K[,K...]" (analyze --what-if); throws std::invalid_argument saying what is wrong.
std::vector<int> parseBucketsWhatIf(const std::string& text);

std::string formatBucketWhatIf(const BucketWhatIf& w);
nlohmann::json bucketWhatIfJson(const BucketWhatIf& w);

}  // namespace pipescope
