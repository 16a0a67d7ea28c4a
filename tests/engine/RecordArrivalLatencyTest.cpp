// From an op's end on the GPU to its record reaching the recorder
// (record/ArrivalLatency.h, RecordAssembler::feed's arrival time).
#include <gtest/gtest.h>

#include "RecordTestSupport.h"
#include "record/ArrivalLatency.h"

namespace pipescope {
namespace {

using namespace pipescope::testing;

constexpr std::int64_t kMs = 1'000'000;

TEST(RecordArrivalLatency, QuantilesFollowTheDelaysToAHistogramStep) {
  record::ArrivalLatency a;
  EXPECT_EQ(a.quantileMs(0.95), 0.0);
  for (int i = 1; i <= 100; ++i) a.add(5 * kMs, 5 * kMs + i * kMs);
  EXPECT_EQ(a.count(), 100u);
  EXPECT_NEAR(a.quantileMs(0.5), 50.0, 0.11);
  EXPECT_NEAR(a.quantileMs(0.95), 95.0, 0.11);
  EXPECT_NEAR(a.maxMs(), 100.0, 1e-9);
  EXPECT_NEAR(a.quantileMs(1.0), 100.0, 1e-9);
}

TEST(RecordArrivalLatency, LongDelaysAndClockErrorsAreKept) {
  record::ArrivalLatency a;
  a.add(10 * kMs, 5 * kMs);  // "arrived before it ended": the clocks' mapping error, 0
  a.add(0, 2500 * kMs);      // 2.5 s: the coarse steps
  a.add(0, 500'000 * kMs);   // beyond the histogram
  EXPECT_EQ(a.count(), 3u);
  EXPECT_LE(a.quantileMs(0.3), 0.1);  // the first step
  EXPECT_NEAR(a.quantileMs(0.6), 2500.0, 10.0);
  EXPECT_NEAR(a.maxMs(), 500'000.0, 1e-6);
}

TEST(RecordArrivalLatency, TheAssemblerMeasuresGpuOpsFromTheirEndToWhenTheirBytesArrived) {
  FakeRecordedProcess p;
  auto& t = p.translator();
  t.api(apiCall("cudaLaunchKernel", 0, 2, 1));
  t.gpu(kernel("k", 10, 40, 1));  // ends at 40 us
  t.api(apiCall("cudaLaunchKernel", 3, 4, 2));
  t.gpu(kernel("k", 40, 1040, 2));  // ends at 1040 us
  p.endRound();
  auto trace = std::make_shared<Trace>();
  record::RecordAssembler a(trace, kRecordOrigin);
  const auto proc = a.addProcess();
  ASSERT_TRUE(a.feed(proc, p.takeBytes(), at(40) + 30 * kMs));
  const record::ArrivalLatency& latency = a.arrivalLatency();
  EXPECT_EQ(latency.count(), 2u);  // the kernels; the API calls ran on the host
  EXPECT_NEAR(latency.quantileMs(0.0), 29.0, 0.11);
  EXPECT_NEAR(latency.maxMs(), 30.0, 1e-9);
}

TEST(RecordArrivalLatency, BytesFedWithoutAnArrivalTimeAreNotMeasured) {
  FakeRecordedProcess p;
  p.translator().api(apiCall("cudaLaunchKernel", 0, 2, 1));
  p.translator().gpu(kernel("k", 10, 40, 1));
  p.endRound();
  auto trace = std::make_shared<Trace>();
  record::RecordAssembler a(trace, kRecordOrigin);
  const auto proc = a.addProcess();
  ASSERT_TRUE(a.feed(proc, p.takeBytes()));
  EXPECT_EQ(a.arrivalLatency().count(), 0u);
}

}  // namespace
}  // namespace pipescope
