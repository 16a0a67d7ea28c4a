// The what-if "with K buckets" on a job's ranks: the schedule and the cost fit by hand,
// then on the real DDP fixtures (4 all-reduce buckets a step, tools/ddp-traces.py).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "io/TraceFiles.h"
#include "ranks/BucketWhatIf.h"
#include "ranks/CollectiveMatch.h"
#include "ranks/RankAnalysis.h"
#include "ranks/RankFiles.h"
#include "ranks/RankMerge.h"

namespace pipescope {
namespace {

std::string ddp(const std::string& job) { return std::string(PIPESCOPE_FIXTURES_DIR) + "/ddp/" + job; }

TEST(BucketWhatIf, ScheduleFollowsTheBackwardOneBucketAtATime) {
  const AllReduceCost cost{10, 0.1};  // 10 ns + 0.1 ns a byte
  // One bucket: it waits for the whole backward (900), then 10 + 300.
  BucketSchedule s = scheduleBuckets(900, 3000, 1, cost);
  EXPECT_DOUBLE_EQ(s.communicationNs, 310);
  EXPECT_DOUBLE_EQ(s.exposedNs, 310);
  // Two: 160 each, ready at 450 and 900: the second ends at 1060.
  s = scheduleBuckets(900, 3000, 2, cost);
  EXPECT_DOUBLE_EQ(s.communicationNs, 320);
  EXPECT_DOUBLE_EQ(s.exposedNs, 160);
  // Three: 110 each, ready at 300, 600, 900; they end at 410, 710, 1010.
  s = scheduleBuckets(900, 3000, 3, cost);
  EXPECT_DOUBLE_EQ(s.communicationNs, 330);
  EXPECT_DOUBLE_EQ(s.exposedNs, 110);
  // A short backward: the second bucket queues behind the first (ends 210, then 370).
  s = scheduleBuckets(100, 3000, 2, cost);
  EXPECT_DOUBLE_EQ(s.exposedNs, 270);
  // Latency-bound: many small buckets cost more than they hide.
  const AllReduceCost slowStart{200, 0.01};
  EXPECT_GT(scheduleBuckets(900, 3000, 64, slowStart).exposedNs, scheduleBuckets(900, 3000, 4, slowStart).exposedNs);
}

TEST(BucketWhatIf, CostIsTheLineThroughTheCallsLatencyNeverNegative) {
  AllReduceCost c = fitAllReduceCost({{1000, 110}, {2000, 210}, {4000, 410}});
  EXPECT_NEAR(c.latencyNs, 10, 1e-9);
  EXPECT_NEAR(c.nsPerByte, 0.1, 1e-12);
  // A line through these would start below zero: through the origin instead.
  c = fitAllReduceCost({{1000, 50}, {2000, 200}});
  EXPECT_EQ(c.latencyNs, 0);
  EXPECT_NEAR(c.nsPerByte, (1000 * 50 + 2000 * 200) / (1000.0 * 1000 + 2000.0 * 2000), 1e-12);
  // Nothing to read a slope from.
  EXPECT_EQ(fitAllReduceCost({{1000, 50}}).nsPerByte, 0);
  EXPECT_EQ(fitAllReduceCost({{1000, 50}, {1000, 70}}).nsPerByte, 0);
  EXPECT_EQ(fitAllReduceCost({{1000, 90}, {2000, 50}}).nsPerByte, 0);  // larger calls faster: no cost per byte
}

TEST(BucketWhatIf, TheAskedBucketCountsAreParsedOrRefusedWithWhy) {
  EXPECT_EQ(parseBucketsWhatIf("buckets=4"), std::vector<int>({4}));
  EXPECT_EQ(parseBucketsWhatIf("buckets=1,2,8,2"), std::vector<int>({1, 2, 8}));
  for (const char* bad : {"buckets=", "buckets=0", "buckets=2,x", "buckets=4.5", "buckets=100000", "straggler", "4"}) {
    try {
      parseBucketsWhatIf(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(BucketWhatIf, ACollectivesSizeIsReadFromPyTorchsElementsAndType) {
  auto kernel = [](int ts, const std::string& args) {
    return R"j({"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)","pid":0,"tid":7,"ts":)j" +
           std::to_string(ts) + R"(,"dur":5,"args":{"stream":7,)" + args + "}}";
  };
  const auto trace = loadTraceFromBytes(
      R"({"traceEvents":[)" + kernel(10, R"("In msg nelems":1000,"dtype":"BFloat16")") + "," +
          kernel(20, R"("dtype":"Float","In msg nelems":3)") + "," +
          kernel(30, R"("In msg nelems":"many","dtype":"Float")") + "," +        // another shape: no size
          kernel(40, R"("In msg nelems":8,"dtype":"Quaternion")") + "," +        // an unknown type: no size
          kernel(50, R"("In msg nelems":8,"dtype":"Float","bytes":12)") + "]}",  // "bytes" is what it says
      "synthetic.json");
  std::vector<std::uint64_t> bytes;
  for (const CollectiveCall& c : collectiveCalls(*trace)) bytes.push_back(c.bytes);
  EXPECT_EQ(bytes, (std::vector<std::uint64_t>{2000, 12, 0, 0, 12}));
}

TEST(BucketWhatIf, OneRankHasNoPrediction) {
  Trace trace;
  const BucketWhatIf w = predictBuckets(trace, analyzeRanks(trace));
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.why.find("several ranks"), std::string::npos) << w.why;
  EXPECT_NE(formatBucketWhatIf(w).find("no prediction"), std::string::npos);
}

TEST(BucketWhatIf, OnTheSlowedDdpJobItModelsTheCriticalRanksFourBuckets) {
  const auto trace = loadRanks({ddp("ddp-w4-slowed")}, {}, {}, nullptr);
  const RankAnalysis a = analyzeRanks(*trace);
  // PyTorch's NCCL kernels carry their size as elements and dtype: DDP's four buckets
  // of fp32 gradients (ResNet-18's 11.7 M parameters: 962816 + 2049000 + 1050624 +
  // 1180672 elements).
  std::set<std::uint64_t> sizes;
  for (const CollectiveCall& c : collectiveCalls(*trace, 0, a.ranks[0].device))
    if (c.type == "AllReduce") sizes.insert(c.bytes);
  sizes.erase(0);  // kernels launched before the profiler started carry no arguments
  EXPECT_EQ(sizes, (std::set<std::uint64_t>{962816 * 4, 2049000 * 4, 1050624 * 4, 1180672 * 4}));

  const BucketWhatIf w = predictBuckets(*trace, a, {1, 2, 4, 8});
  ASSERT_TRUE(w.ok()) << w.why;
  EXPECT_EQ(w.rank, 1) << "the straggler waits for nobody: its steps are the job's";
  EXPECT_EQ(w.measuredBuckets, 4);
  EXPECT_GE(w.steps, 11u);
  EXPECT_NEAR(w.gradientBytes, 4.0 * (962816 + 2049000 + 1050624 + 1180672), 1.0);
  EXPECT_NEAR(w.stepNs, a.ranks[1].iterationMeanNs, 1.0);
  EXPECT_GE(w.fitCalls, 40u);
  // H200s joined by NVLink: a 4-rank all-reduce's bus bandwidth in the hundreds of GB/s,
  // a few µs a ring step.
  EXPECT_GT(w.busGBps, 100);
  EXPECT_LT(w.busGBps, 1000);
  EXPECT_LT(w.ringStepLatencyNs, 50'000);
  ASSERT_EQ(w.predictions.size(), 4u);
  // At the trace's own bucket count the prediction is what was measured.
  EXPECT_NEAR(w.predictions[2].stepNs, w.stepNs, 1.0);
  EXPECT_NEAR(w.predictions[2].exposedNs, w.measuredExposedNs, 1.0);
  // One bucket exposes the whole all-reduce after the backward; more hide more of it,
  // each costing one more call's latency.
  EXPECT_GT(w.predictions[0].exposedNs, w.predictions[1].exposedNs);
  EXPECT_GT(w.predictions[1].exposedNs, w.predictions[3].exposedNs);
  EXPECT_LT(w.predictions[0].communicationNs, w.predictions[3].communicationNs);
  EXPECT_NEAR(w.predictions[0].communicationNs, w.cost.ns(w.gradientBytes), 1.0);
  // The step is the straggler's: the buckets change it by well under a millisecond.
  EXPECT_LT(std::abs(w.predictions[0].stepNs - w.stepNs), 1e6);

  const std::string text = formatBucketWhatIf(w);
  for (const char* said :
       {"rank 1", "4 (measured)", "Assumes", "equal bytes", "2/3", "bus bandwidth", "stay as measured"})
    EXPECT_NE(text.find(said), std::string::npos) << said << " in\n" << text;
  const auto j = bucketWhatIfJson(w);
  EXPECT_EQ(j["predictions"].size(), 4u);
  EXPECT_EQ(j["measured"]["buckets"], 4);
}

}  // namespace
}  // namespace pipescope
