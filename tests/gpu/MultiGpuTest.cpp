// The CUDA backend over several GPUs: data parallel with NCCL all-reduce buckets,
// pipeline parallel with peer copies, and the bad inputs. Each test skips, saying why,
// without two GPUs or in a build without NCCL.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "GpuTestEnvironment.h"

namespace pipescope {
namespace {

class MultiGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if !PIPESCOPE_HAVE_NCCL
    GTEST_SKIP() << "this build has no NCCL: several GPUs run on the simulator only";
#endif
    PIPESCOPE_LOAD_CUDA_MODULE(cuda);
    const CudaProbe probe = cuda.probe();
    if (probe.status != CudaProbe::Status::Available) GTEST_SKIP() << "no CUDA device: " << probe.message;
    gpus_ = probe.deviceCount;
    if (gpus_ < 2) GTEST_SKIP() << "needs 2 GPUs; this machine has " << gpus_;
    std::string error;
    backend_ = cuda.makeBackend(0, error);
    ASSERT_TRUE(backend_) << error;
  }

  /// Two GPUs (four when there are; the tests are sized so either takes well under a second).
  std::vector<int> devices() const {
    std::vector<int> d;
    for (int g = 0; g < std::min(gpus_, 4); ++g) d.push_back(g);
    return d;
  }

  PipelineConfig dataParallel(int buckets) const {
    PipelineConfig c;
    c.devices = devices();
    c.parallel = ParallelMode::Data;
    c.batchSamples = 16;
    c.sampleBytes = 1 << 20;  // 16 MiB batches
    c.batchCount = 4 * int(c.devices.size());
    c.streams = 2;
    c.modelFlopsPerByte = 2000;  // the kernels take a few times longer than a bucket's all-reduce
    c.allreduceBytes = 64ull << 20;
    c.buckets = buckets;
    return c;
  }

  PipelineConfig pipelineParallel() const {
    PipelineConfig c;
    c.devices = devices();
    c.parallel = ParallelMode::Pipeline;
    c.batchSamples = 16;
    c.sampleBytes = 1 << 20;
    c.batchCount = 6;
    c.streams = 1;
    c.microBatches = 4;
    c.activationBytes = 8ull << 20;
    // Each stage's kernel (~0.3 ms on an H100/H200) outlasts the first stage's next input
    // copy (4 MiB, ~0.08 ms), so the stages can compute at once.
    c.modelFlopsPerByte = 8000;
    return c;
  }

  std::vector<Op> run(const PipelineConfig& c, RunOutcome* outcome = nullptr) {
    trace_ = std::make_unique<Trace>();
    trace_->setConfig(c);
    RunControl control;
    const RunOutcome o = backend_->run(c, *trace_, control);
    if (outcome) {
      *outcome = o;
    } else {
      EXPECT_EQ(o.state, RunState::Finished) << o.message;
      EXPECT_EQ(o.message.find("no CUPTI record"), std::string::npos) << o.message;
    }
    std::vector<Op> ops;
    trace_->ops().snapshot().forEach([&](const Op& op) { ops.push_back(op); });
    lanes_ = trace_->lanes();
    return ops;
  }

  int deviceOf(const Op& op) const { return lanes_[op.lane].device; }
  LaneKind laneKind(std::uint16_t lane) const { return lanes_[lane].kind; }
  std::string opName(const Op& op) const { return trace_->opName(op); }

  static bool overlaps(const Op& a, const Op& b) { return a.start < b.end && b.start < a.end; }

  /// Every GPU of the run recorded its copies and kernels on its own lanes, and every
  /// GPU op has its API call on the submit thread.
  void expectEveryGpu(const std::vector<Op>& ops, int gpus) {
    ASSERT_EQ(int(trace_->devices().size()), gpus);
    for (int g = 0; g < gpus; ++g) {
      EXPECT_EQ(trace_->devices()[std::size_t(g)].ordinal, g);
      std::set<OpKind> kinds;
      for (const Op& op : ops)
        if (isGpuKind(op.kind) && laneKind(op.lane) == LaneKind::Stream && deviceOf(op) == g) {
          kinds.insert(op.kind);
          const int engineDevice = lanes_[op.engineLane].device;
          // A link lane belongs to the GPU it leaves: GPU g sends on its own (through the
          // host, the receiving half is issued by GPU g+1 on GPU g's link).
          if (laneKind(op.engineLane) == LaneKind::PeerLink)
            EXPECT_TRUE(engineDevice == g || engineDevice == g - 1) << "GPU " << g << " on link of GPU " << engineDevice;
          else
            EXPECT_EQ(engineDevice, g) << "an op of GPU " << g << " on another GPU's engine";
        }
      EXPECT_TRUE(kinds.count(OpKind::Kernel)) << "GPU " << g << " ran no kernel";
    }
    for (const Op& op : ops) {
      if (!isGpuKind(op.kind) || laneKind(op.lane) == LaneKind::Collective) continue;
      EXPECT_LE(op.submit, op.ready);
      EXPECT_LE(op.ready, op.start);
      EXPECT_LE(op.start, op.end);
      const auto calls = std::count_if(ops.begin(), ops.end(), [&](const Op& o) {
        return o.kind == OpKind::ApiCall && o.correlation == op.correlation;
      });
      EXPECT_EQ(calls, 1) << toString(op.kind) << " without exactly one API call";
    }
  }

  int gpus_ = 0;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Trace> trace_;
  std::vector<Lane> lanes_;
};

TEST_F(MultiGpuTest, DataParallelBucketsAllReduceWhileTheKernelsRun) {
  const PipelineConfig c = dataParallel(4);
  const int n = int(c.devices.size());
  const auto ops = run(c);
  std::printf("[   NOTE   ] %d GPUs, timing source %s %s\n", n, trace_->device().timingSource.c_str(),
              trace_->device().note.c_str());
  expectEveryGpu(ops, n);
  EXPECT_EQ(trace_->completedBatches(), c.batchCount);
  const int steps = c.batchCount / n;
  std::map<int, std::vector<Op>> collectives, kernels;  // by GPU
  int wholes = 0;
  for (const Op& op : ops) {
    if (op.kind == OpKind::Collective && laneKind(op.lane) == LaneKind::Collective) ++wholes;
    else if (op.kind == OpKind::Collective) collectives[deviceOf(op)].push_back(op);
    else if (op.kind == OpKind::Kernel && opName(op) == "model") kernels[deviceOf(op)].push_back(op);
  }
  EXPECT_EQ(wholes, steps * c.buckets) << "one all-reduce as a whole per bucket and step";
  for (int g = 0; g < n; ++g) {
    ASSERT_EQ(int(collectives[g].size()), steps * c.buckets) << "GPU " << g;
    for (const Op& op : collectives[g]) {
      EXPECT_EQ(op.bytes, c.allreduceBytes / std::uint64_t(c.buckets));
      EXPECT_EQ(laneKind(op.engineLane), LaneKind::ComputeEngine);
    }
    EXPECT_EQ(int(kernels[g].size()), steps * c.buckets) << "the model kernel as one launch per bucket";
    // The first buckets of a step run while its later kernel pieces do.
    int overlapping = 0;
    for (const Op& a : collectives[g])
      for (const Op& k : kernels[g])
        if (k.batch == a.batch && overlaps(a, k)) {
          ++overlapping;
          break;
        }
    EXPECT_GT(overlapping, 0) << "on GPU " << g << " no all-reduce bucket overlapped a kernel of its batch";
  }
}

TEST_F(MultiGpuTest, OneAllReduceAfterAllComputeOverlapsNoKernel) {
  const PipelineConfig c = dataParallel(0);
  const int n = int(c.devices.size());
  const auto ops = run(c);
  expectEveryGpu(ops, n);
  std::map<int, std::vector<Op>> collectives, kernels;
  for (const Op& op : ops) {
    if (op.kind == OpKind::Collective && laneKind(op.lane) == LaneKind::Stream) collectives[deviceOf(op)].push_back(op);
    if (op.kind == OpKind::Kernel) kernels[deviceOf(op)].push_back(op);
  }
  // Two clocks are not involved (CUPTI alone times both), but allow a microsecond.
  constexpr std::int64_t kSlackNs = 1000;
  for (int g = 0; g < n; ++g) {
    ASSERT_EQ(int(collectives[g].size()), c.batchCount / n);
    for (const Op& a : collectives[g])
      for (const Op& k : kernels[g])
        EXPECT_FALSE(a.start + kSlackNs < k.end && k.start + kSlackNs < a.end)
            << "GPU " << g << ": the all-reduce of batch " << a.batch << " overlapped a kernel of batch " << k.batch;
  }
}

TEST_F(MultiGpuTest, PipelineStagesHandActivationsOverTheLink) {
  const PipelineConfig c = pipelineParallel();
  const int n = int(c.devices.size());
  const auto ops = run(c);
  expectEveryGpu(ops, n);
  EXPECT_EQ(trace_->completedBatches(), c.batchCount);
  std::map<int, int> perLink;
  for (const Op& op : ops) {
    if (op.kind != OpKind::PeerCopy) continue;
    ASSERT_EQ(laneKind(op.engineLane), LaneKind::PeerLink);
    EXPECT_EQ(op.bytes, c.activationBytes);
    ++perLink[lanes_[op.engineLane].device];  // a link lane belongs to the GPU it leaves
  }
  const bool staged = trace_->device().note.find("no peer access") != std::string::npos;
  for (int k = 0; k + 1 < n; ++k)
    EXPECT_EQ(perLink[k], c.batchCount * c.microBatches * (staged ? 2 : 1)) << "link " << k;
  // Stage k's kernels of a batch start only after some activation reached it, and only
  // the first stage copies input in, only the last copies output back.
  for (const Op& op : ops) {
    if (op.kind == OpKind::CopyH2D) {
      EXPECT_EQ(deviceOf(op), 0);
    }
    if (op.kind == OpKind::CopyD2H) {
      EXPECT_EQ(deviceOf(op), n - 1);
    }
  }
  for (int b = 0; b < c.batchCount; ++b) {
    std::int64_t firstArrival = INT64_MAX, firstKernelOnSecond = INT64_MAX;
    for (const Op& op : ops) {
      if (op.batch != b) continue;
      if (op.kind == OpKind::PeerCopy && lanes_[op.engineLane].device == 0) firstArrival = std::min(firstArrival, op.end);
      if (op.kind == OpKind::Kernel && deviceOf(op) == 1) firstKernelOnSecond = std::min(firstKernelOnSecond, op.start);
    }
    EXPECT_GE(firstKernelOnSecond, firstArrival) << "batch " << b << ": stage 1 ran before its input arrived";
  }
  // Micro-batches keep both stages busy at once somewhere in the run (the bubble is not everything).
  bool concurrent = false;
  for (const Op& a : ops)
    for (const Op& k : ops)
      if (!concurrent && a.kind == OpKind::Kernel && k.kind == OpKind::Kernel && deviceOf(a) == 0 &&
          deviceOf(k) == 1 && overlaps(a, k))
        concurrent = true;
  EXPECT_TRUE(concurrent) << "stage 0 and stage 1 never computed at the same time";
}

TEST_F(MultiGpuTest, MoreGpusThanPresentIsAClearError) {
  PipelineConfig c = dataParallel(1);
  c.devices.clear();
  for (int g = 0; g <= gpus_; ++g) c.devices.push_back(g);
  if (int(c.devices.size()) > limits::kMaxGpus) GTEST_SKIP() << "this machine has the most GPUs a run may ask for";
  c.batchCount = int(c.devices.size());
  RunOutcome o;
  const auto ops = run(c, &o);
  EXPECT_EQ(o.state, RunState::Failed);
  EXPECT_NE(o.message.find("this machine has " + std::to_string(gpus_) + " CUDA GPUs"), std::string::npos)
      << o.message;
  EXPECT_NE(o.message.find("GPU 0 ("), std::string::npos) << "the message names the GPUs: " << o.message;
  EXPECT_TRUE(ops.empty());
}

TEST_F(MultiGpuTest, DataParallelWithoutAllReduceRunsEachGpuAlone) {
  PipelineConfig c = dataParallel(1);
  c.allreduceBytes = 0;
  c.memory = HostMemory::Pageable;  // every memory kind keeps working per GPU; one that is not the default
  const int n = int(c.devices.size());
  const auto ops = run(c);
  expectEveryGpu(ops, n);
  for (const Op& op : ops) EXPECT_NE(op.kind, OpKind::Collective);
  // Batches are dealt round-robin: batch b on GPU b % n.
  for (const Op& op : ops) {
    if (op.kind == OpKind::CopyH2D) {
      EXPECT_EQ(deviceOf(op), op.batch % n) << "batch " << op.batch;
    }
  }
}

}  // namespace
}  // namespace pipescope
