#include "config/Presets.h"

namespace pipescope {

namespace {

// The default configuration is the hand-written pipeline of docs/reference-figures.md:
// 32 batches of 32 MiB, kernel time about equal to the H2D time on an H200 (1050 flops/byte:
// the model kernel runs at 58.7 TFLOP/s there, so 0.60 ms against 0.61 ms for a
// 32 MiB pinned copy; measured 2026-11-22, docs/cuda-backend.md).
PipelineConfig base() { return PipelineConfig{}; }

std::vector<Preset> makePresets() {
  std::vector<Preset> p;
  {
    PipelineConfig c = base();
    c.mode = TransferMode::Blocking;
    c.memory = HostMemory::Pageable;
    p.push_back({"naive", "blocking copies from pageable memory, 1 stream",
                 "Every stage waits for the one before: copies crawl through a staging buffer and "
                 "nothing overlaps.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.mode = TransferMode::Blocking;
    c.memory = HostMemory::Pinned;
    p.push_back({"pinned", "blocking copies from pinned memory, 1 stream",
                 "Pinned memory lets the copy engine read host memory directly: copies run several "
                 "times faster, but still nothing overlaps.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.mode = TransferMode::Async;
    c.memory = HostMemory::Pinned;
    c.streams = 1;
    p.push_back({"async", "asynchronous copies from pinned memory, 1 stream",
                 "The host no longer waits for each copy, but one stream still runs its work in "
                 "order: async alone does not overlap copies with kernels.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.mode = TransferMode::Async;
    c.memory = HostMemory::Pinned;
    c.streams = 4;
    c.order = IssueOrder::DepthFirst;
    p.push_back({"multi-stream", "async, pinned, 4 streams, depth-first issue order",
                 "Batches in different streams overlap: while one batch computes, the next is "
                 "copied in and the previous copied out.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.mode = TransferMode::Async;
    c.memory = HostMemory::Pinned;
    c.streams = 4;
    c.order = IssueOrder::BreadthFirst;
    p.push_back({"breadth-first", "async, pinned, 4 streams, breadth-first issue order",
                 "All copies in, then all kernels, then all copies out: on a GPU with many hardware "
                 "queues this matches depth-first; on legacy single-queue devices it does not.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.streams = 4;
    c.modelFlopsPerByte = 5000.0;  // ~4.7x the default's kernel time
    p.push_back({"compute-heavy", "async, pinned, 4 streams, a model about 5x more expensive than the copies",
                 "The compute engine is busy all the time; more streams cannot help once copies "
                 "hide entirely behind kernels.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.streams = 4;
    c.modelFlopsPerByte = 100.0;
    p.push_back({"copy-heavy", "async, pinned, 4 streams, a light model: copies dominate",
                 "The copy engines are the bottleneck; the kernels finish early and wait for data.",
                 c});
  }
  {
    PipelineConfig c = base();
    c.streams = 4;
    c.preprocessOpsPerByte = 2.0;
    c.cpuWorkers = 1;
    p.push_back({"cpu-bound", "async, pinned, 4 streams, heavy CPU preprocessing on 1 worker",
                 "The GPU waits for the host: the preprocessing lane is full while engines idle. "
                 "More CPU workers fix it.",
                 c});
  }
  return p;
}

}  // namespace

const std::vector<Preset>& builtinPresets() {
  static const std::vector<Preset> presets = makePresets();
  return presets;
}

std::optional<Preset> findPreset(std::string_view name) {
  for (const auto& p : builtinPresets())
    if (p.name == name) return p;
  return std::nullopt;
}

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  for (const auto& p : builtinPresets()) names.push_back(p.name);
  return names;
}

}  // namespace pipescope
