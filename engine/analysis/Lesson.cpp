#include "analysis/Lesson.h"

#include <cmath>

#include "analysis/AnalysisFormat.h"
#include "config/Presets.h"

namespace pipescope {

std::string Expectation::describe(const std::vector<LessonRun>& runs) const {
  auto label = [&](int i) -> std::string {
    return i >= 0 && std::size_t(i) < runs.size() ? "'" + runs[std::size_t(i)].label + "'" : "run " + std::to_string(i);
  };
  const MetricInfo& info = metricInfo(metric);
  std::string s = std::string(info.label) + " of " + label(run);
  const std::string pct = formatPercent(std::fabs(margin));
  const std::string ref = against >= 0 ? "that of " + label(against) : formatMetric(metric, threshold);
  switch (relation) {
    case Relation::Less:
      s += margin > 0   ? " is at least " + pct + " lower than " + ref
           : margin < 0 ? " is below " + ref + " plus " + pct
                        : " is lower than " + ref;
      break;
    case Relation::Greater:
      s += margin > 0   ? " is at least " + pct + " higher than " + ref
           : margin < 0 ? " is above " + ref + " minus " + pct
                        : " is higher than " + ref;
      break;
    case Relation::About: s += " is within " + pct + " of " + ref; break;
  }
  return s;
}

bool Expectation::holds(const std::vector<Metrics>& results) const {
  if (run < 0 || std::size_t(run) >= results.size()) return false;
  if (against >= 0 && std::size_t(against) >= results.size()) return false;
  const double v = metricValue(results[std::size_t(run)], metric);
  const double ref = against >= 0 ? metricValue(results[std::size_t(against)], metric) : threshold;
  return holdsOn(v, ref);
}

bool Expectation::holdsOn(double v, double ref) const {
  switch (relation) {
    case Relation::Less: return v < ref * (1.0 - margin);
    case Relation::Greater: return v > ref * (1.0 + margin);
    case Relation::About: return std::fabs(v - ref) <= margin * std::fabs(ref);
  }
  return false;
}

int observedChoice(const Prediction& prediction, const std::vector<Metrics>& results) {
  for (std::size_t i = 0; i < prediction.choices.size(); ++i) {
    bool all = true;
    for (const auto& e : prediction.choices[i].when) all = all && e.holds(results);
    if (all) return int(i);
  }
  return -1;
}

namespace {

PipelineConfig preset(const char* name) { return findPreset(name)->config; }

Expectation less(MetricId m, int run, int against, double margin) {
  return {m, run, Relation::Less, against, 0, margin};
}
Expectation greater(MetricId m, int run, int against, double margin) {
  return {m, run, Relation::Greater, against, 0, margin};
}
Expectation about(MetricId m, int run, int against, double margin) {
  return {m, run, Relation::About, against, 0, margin};
}
Expectation below(MetricId m, int run, double threshold) { return {m, run, Relation::Less, -1, threshold, 0}; }
Expectation above(MetricId m, int run, double threshold) { return {m, run, Relation::Greater, -1, threshold, 0}; }

// "'4 streams' finished 2.5x faster than '1 stream' (23.5 ms against 59.8 ms)."
std::string speed(const std::string& a, const Metrics& ma, const std::string& b, const Metrics& mb) {
  if (ma.makespanNs <= 0 || mb.makespanNs <= 0) return {};
  const double r = ma.makespanNs / mb.makespanNs;
  std::string verdict = std::fabs(r - 1.0) < 0.05 ? "finished in about the same time as"
                        : r > 1.0                 ? "finished " + formatRatio(r) + " faster than"
                                                  : "took " + formatRatio(1.0 / r) + " as long as";
  return "  " + b + " " + verdict + " " + a + " (" + formatNs(mb.makespanNs) + " against " + formatNs(ma.makespanNs) +
         ").\n";
}

using NumbersFn = std::function<std::string(const std::vector<Metrics>&)>;

// The usual "numbers afterwards": key figures of every run, then how each run
// compares with the one before it (pairs), from the actual metrics.
NumbersFn numbersOf(std::vector<std::string> labels, std::vector<MetricId> ids,
                    std::vector<std::pair<int, int>> pairs) {
  return [labels, ids, pairs](const std::vector<Metrics>& m) {
    std::string s;
    for (std::size_t i = 0; i < labels.size() && i < m.size(); ++i) {
      std::string l = "  " + labels[i] + ": makespan " + formatNs(m[i].makespanNs);
      for (MetricId id : ids)
        l += ", " + std::string(metricInfo(id).label) + " " + formatMetric(id, metricValue(m[i], id));
      s += l + "\n";
    }
    for (auto [a, b] : pairs)
      if (std::size_t(a) < m.size() && std::size_t(b) < m.size())
        s += speed(labels[std::size_t(a)], m[std::size_t(a)], labels[std::size_t(b)], m[std::size_t(b)]);
    return s;
  };
}

std::vector<std::string> labelsOf(const std::vector<LessonRun>& runs) {
  std::vector<std::string> l;
  for (const auto& r : runs) l.push_back(r.label);
  return l;
}

// "How much faster will B be than A?" with the usual three answers.
Prediction fasterQuestion(std::string question, int a, int b, int answer) {
  Prediction p;
  p.question = std::move(question);
  p.choices = {
      {"about the same (within 10%)", {about(MetricId::Makespan, b, a, 0.10)}},
      {"faster, but less than 2x", {less(MetricId::Makespan, b, a, 0.10), greater(MetricId::Makespan, b, a, -0.5)}},
      {"more than 2x faster", {less(MetricId::Makespan, b, a, 0.5)}},
  };
  p.answer = answer;
  return p;
}

std::vector<Lesson> makeLessons() {
  std::vector<Lesson> lessons;
  const PipelineConfig naive = preset("naive"), pinned = preset("pinned"), async = preset("async"),
                       multi = preset("multi-stream");

  {
    Lesson l;
    l.id = "naive";
    l.title = "The naive pipeline: blocking copies from pageable memory";
    l.lookFor =
        "Every stage waits for the one before it: the copy, then the kernels, then the copy back, one batch at a time. "
        "The copies crawl because the driver stages pageable memory through a pinned buffer of its own, and the "
        "compute engine sits idle while they do.";
    l.runs = {{"naive", naive, ""}};
    l.prediction.question = "For what share of the run will the GPU's compute engine be busy?";
    l.prediction.choices = {
        {"most of the time (over 60%)", {above(MetricId::ComputeBusy, 0, 0.6)}},
        {"between 20% and 60%", {above(MetricId::ComputeBusy, 0, 0.2), below(MetricId::ComputeBusy, 0, 0.6)}},
        {"less than 20%", {below(MetricId::ComputeBusy, 0, 0.2)}},
    };
    l.prediction.answer = 2;
    l.expectations = {below(MetricId::ComputeBusy, 0, 0.2), below(MetricId::ComputeOverlap, 0, 0.05)};
    l.numbers = numbersOf(
        labelsOf(l.runs),
        {MetricId::H2DGBps, MetricId::D2HGBps, MetricId::ComputeBusy, MetricId::H2DBusy, MetricId::ComputeOverlap}, {});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "pinned";
    l.title = "Pinned memory";
    l.lookFor =
        "Pinned (page-locked) host memory lets the copy engine read and write it directly, without the driver's "
        "staging copy. Look at the width of the copy bars and at the GB/s: the copies run several times faster, but "
        "nothing overlaps yet.";
    l.runs = {{"pageable", naive, ""}, {"pinned", pinned, ""}};
    l.prediction = fasterQuestion("How much faster will the whole run be with pinned memory?", 0, 1, 2);
    l.expectations = {less(MetricId::Makespan, 1, 0, 0.5), greater(MetricId::H2DGBps, 1, 0, 2.0),
                      below(MetricId::ComputeOverlap, 1, 0.05)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::H2DGBps, MetricId::D2HGBps, MetricId::ComputeBusy}, {{0, 1}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "async-one-stream";
    l.title = "Async copies on one stream";
    l.lookFor =
        "cudaMemcpyAsync returns at once, so the host no longer waits for each copy. But a stream runs its work in "
        "order: the kernel of a batch still waits for its copy, and the next copy waits for the kernel. Look for "
        "copies and kernels side by side: there are none. On a current GPU the async run is often a little faster "
        "(a blocking cudaMemcpy from pinned memory is slower than cudaMemcpyAsync, and the host waits after every "
        "copy), but nowhere near what overlap gives in the next lesson. Legacy what-if: on a 2010 Fermi card "
        "(simulated C2050-like) the two took the same time.";
    // The what-if is 2 batches: on the C2050's PCIe Gen2 and slow SMs the preset's 32
    // batches would take 6 s each.
    PipelineConfig legacyBlocking = pinned, legacyAsync = async;
    legacyBlocking.batchCount = legacyAsync.batchCount = 2;
    l.runs = {{"blocking, pinned", pinned, ""},
              {"async, 1 stream", async, ""},
              {"C2050-like, blocking (legacy what-if)", legacyBlocking, "c2050-like"},
              {"C2050-like, async, 1 stream (legacy what-if)", legacyAsync, "c2050-like"}};
    l.prediction.question = "Will async copies on a single stream overlap the copies with the kernels?";
    l.prediction.choices = {
        {"yes: the run gets at least 25% faster", {less(MetricId::Makespan, 1, 0, 0.25)}},
        {"no: copies and kernels still take turns; at most a little faster (under 25%)",
         {greater(MetricId::Makespan, 1, 0, -0.25), less(MetricId::Makespan, 1, 0, -0.05)}},
        {"it gets slower", {greater(MetricId::Makespan, 1, 0, 0.05)}},
    };
    l.prediction.answer = 1;
    // What holds on every card: no overlap, so no big gain and no loss. The legacy
    // claim (same time) stays, on the device it was written for.
    l.expectations = {below(MetricId::ComputeOverlap, 1, 0.05), greater(MetricId::Makespan, 1, 0, -0.25),
                      less(MetricId::Makespan, 1, 0, -0.05), about(MetricId::Makespan, 3, 2, 0.05)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::ComputeOverlap, MetricId::GpuIdle}, {{0, 1}, {2, 3}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "streams";
    l.title = "Several streams: copy/compute overlap";
    l.lookFor =
        "With batches spread over 4 streams, the GPU can copy one batch in while it computes another and copies a "
        "third out: the two copy engines and the compute engine work at the same time. Look at the engine lanes "
        "filling up, and at the run approaching the ideal bound.";
    PipelineConfig two = multi;
    two.streams = 2;
    l.runs = {{"1 stream", async, ""}, {"2 streams", two, ""}, {"4 streams", multi, ""}};
    l.prediction = fasterQuestion("How much faster than one stream will 4 streams be?", 0, 2, 2);
    l.expectations = {less(MetricId::Makespan, 2, 0, 0.5), less(MetricId::Makespan, 1, 0, 0.2),
                      above(MetricId::ComputeOverlap, 2, 0.5), greater(MetricId::Efficiency, 2, 0, 0.5)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::ComputeOverlap, MetricId::Efficiency}, {{0, 1}, {0, 2}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "issue-order";
    l.title = "Issue order: depth-first vs breadth-first";
    l.lookFor =
        "A current GPU has many hardware queues (Hyper-Q) and two copy engines: work from different streams reaches "
        "the engines independently, so whether the host issues batch by batch (depth-first) or stage by stage "
        "(breadth-first) no longer matters much. Legacy what-if: older GPUs had one hardware queue (and the C1060 "
        "one copy engine), so work ran in the order the host issued it across all streams and a copy back issued "
        "early could block the next batch's copy in: on the simulated C1060 breadth-first wins, on the simulated "
        "C2050 depth-first wins.";
    // Mark Harris's experiment: 4M floats in 4 chunks on 4 streams.
    PipelineConfig h;
    h.normalizeKernel = false;
    h.modelFlopsPerByte = 50;
    h.memory = HostMemory::Pinned;
    h.mode = TransferMode::Async;
    h.sampleBytes = 16;
    h.batchSamples = 1 << 18;
    h.batchCount = 4;
    h.streams = 4;
    PipelineConfig bf = h;
    bf.order = IssueOrder::BreadthFirst;
    // On a current GPU the experiment takes half a millisecond, where launch jitter
    // alone moves it by several percent: this GPU repeats it 8 times (32 chunks).
    PipelineConfig hNow = h, bfNow = bf;
    hNow.batchCount = bfNow.batchCount = 32;
    l.runs = {{"C1060-like, depth-first (legacy what-if)", h, "c1060-like"},
              {"C1060-like, breadth-first (legacy what-if)", bf, "c1060-like"},
              {"C2050-like, depth-first (legacy what-if)", h, "c2050-like"},
              {"C2050-like, breadth-first (legacy what-if)", bf, "c2050-like"},
              {"this GPU, depth-first", hNow, ""},
              {"this GPU, breadth-first", bfNow, ""}};
    l.prediction.question = "On this GPU (many hardware queues), which issue order finishes first?";
    l.prediction.choices = {
        {"depth-first, by more than 10%", {less(MetricId::Makespan, 4, 5, 0.10)}},
        {"breadth-first, by more than 10%", {less(MetricId::Makespan, 5, 4, 0.10)}},
        {"no real difference (within 10%)", {about(MetricId::Makespan, 5, 4, 0.10)}},
    };
    l.prediction.answer = 2;
    l.expectations = {about(MetricId::Makespan, 5, 4, 0.10), less(MetricId::Makespan, 1, 0, 0.1),
                      less(MetricId::Makespan, 2, 3, 0.1)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::ComputeOverlap}, {{4, 5}, {0, 1}, {2, 3}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "resident";
    l.title = "Keep data on the GPU instead of round trips";
    l.lookFor =
        "When later batches reuse the same input, it only has to cross PCIe once. Look at the H2D lane: after the "
        "first "
        "batch of each stream it is empty, and each batch is only kernels and the copy back.";
    PipelineConfig resident = async;
    resident.residency = DataResidency::KeepResident;
    l.runs = {{"copy every batch", async, ""}, {"keep resident", resident, ""}};
    l.prediction = fasterQuestion("How much faster will the run be when the input stays on the GPU?", 0, 1, 1);
    l.expectations = {less(MetricId::Makespan, 1, 0, 0.2), less(MetricId::H2DBytes, 1, 0, 0.9)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::H2DBytes, MetricId::H2DBusy}, {{0, 1}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "roi";
    l.title = "Copy back only a region of interest";
    l.lookFor =
        "Often the host needs only part of the result (a crop, the top-k scores, a mask). Copying back a quarter of "
        "the output shortens every D2H bar to a quarter; look at what that does to the batch and to the run.";
    PipelineConfig roi = async;
    roi.roiFraction = 0.25;
    l.runs = {{"whole output", async, ""}, {"a quarter of the output", roi, ""}};
    l.prediction =
        fasterQuestion("How much faster will the run be when only a quarter of the output comes back?", 0, 1, 1);
    l.expectations = {less(MetricId::Makespan, 1, 0, 0.15), less(MetricId::D2HBytes, 1, 0, 0.7)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::D2HBytes, MetricId::D2HBusy}, {{0, 1}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "compute-vs-copy";
    l.title = "Compute-heavy vs copy-heavy: when more streams stop helping";
    l.lookFor =
        "Streams only hide work behind other work. Once the slowest engine is busy all the time, more streams cannot "
        "help: with a heavy model that is the compute engine, with a light one the copy engines. Look at which lane "
        "is solid in each run.";
    PipelineConfig heavy = preset("compute-heavy"), light = preset("copy-heavy");
    PipelineConfig heavy1 = heavy, light1 = light, heavy8 = heavy, light8 = light;
    heavy1.streams = light1.streams = 1;
    heavy8.streams = light8.streams = 8;
    l.runs = {{"compute-heavy, 1 stream", heavy1, ""},  {"compute-heavy, 4 streams", heavy, ""},
              {"compute-heavy, 8 streams", heavy8, ""}, {"copy-heavy, 1 stream", light1, ""},
              {"copy-heavy, 4 streams", light, ""},     {"copy-heavy, 8 streams", light8, ""}};
    l.prediction.question = "The compute-heavy model already runs on 4 streams. What will 8 streams do?";
    l.prediction.choices = {
        {"finish at least 25% sooner", {less(MetricId::Makespan, 2, 1, 0.25)}},
        {"finish 5% to 25% sooner", {less(MetricId::Makespan, 2, 1, 0.05), greater(MetricId::Makespan, 2, 1, -0.25)}},
        {"make no real difference (within 5%)", {about(MetricId::Makespan, 2, 1, 0.05)}},
    };
    l.prediction.answer = 2;
    l.expectations = {less(MetricId::Makespan, 1, 0, 0.1),   about(MetricId::Makespan, 2, 1, 0.05),
                      above(MetricId::ComputeBusy, 1, 0.9),  less(MetricId::Makespan, 4, 3, 0.4),
                      about(MetricId::Makespan, 5, 4, 0.05), above(MetricId::H2DBusy, 4, 0.85),
                      below(MetricId::ComputeBusy, 4, 0.3)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::ComputeBusy, MetricId::H2DBusy, MetricId::D2HBusy},
                          {{0, 1}, {1, 2}, {3, 4}, {4, 5}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "cpu-workers";
    l.title = "CPU preprocessing as the bottleneck, and more CPU workers";
    l.lookFor =
        "Here the host prepares every batch on the CPU before it can be copied, and one worker thread needs far "
        "longer for that than the GPU needs for the batch. Look at the CPU worker lane: solid, while the engines "
        "idle. Then spread the work over 4 workers.";
    PipelineConfig one = preset("cpu-bound"), four = one;
    four.cpuWorkers = 4;
    l.runs = {{"1 CPU worker", one, ""}, {"4 CPU workers", four, ""}};
    l.prediction = fasterQuestion("How much faster will the run be with 4 CPU workers instead of 1?", 0, 1, 2);
    l.expectations = {above(MetricId::WorkersBusy, 0, 0.9), above(MetricId::GpuIdle, 0, 0.5),
                      less(MetricId::Makespan, 1, 0, 0.5)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::WorkersBusy, MetricId::GpuIdle}, {{0, 1}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "allreduce-buckets";
    l.title = "Several GPUs: overlap the all-reduce with compute (buckets)";
    l.lookFor =
        "Two GPUs train data-parallel: each runs its own batch, then their gradients are summed across the GPUs by "
        "an NCCL all-reduce before the next step. Done in one piece after all the kernels, the all-reduce sits alone "
        "on each GPU's NCCL stream while the compute engine waits. Split into 4 buckets, each issued as soon as its "
        "share of the kernels is done (what PyTorch DDP does), 3 of them run beside the remaining kernels: look at "
        "the collective ops under the kernels on each GPU's compute engine, and at the exposed communication. Then "
        "look at the makespan: NCCL's kernels run on the same SMs as the model's, and these model kernels fill every "
        "SM, so while a bucket runs the kernels beside it slow down by about as much as the overlap hides. Overlap "
        "pays only where the GPU has room for both (smaller kernels, or communication that needs no SMs, such as "
        "copy-engine transfers).";
    PipelineConfig one = async;
    one.streams = 2;
    one.devices = {0, 1};
    one.allreduceBytes = 192ull << 20;  // about one model kernel's time on NVLink
    one.buckets = 0;
    PipelineConfig four = one;
    four.buckets = 4;
    l.runs = {{"one all-reduce after the kernels", one, ""}, {"4 buckets", four, ""}};
    l.prediction.question = "How much sooner will the run finish with the all-reduce in 4 buckets?";
    l.prediction.choices = {
        {"about the same (within 10%)", {about(MetricId::Makespan, 1, 0, 0.10)}},
        {"10% to 50% sooner",
         {less(MetricId::Makespan, 1, 0, 0.10), greater(MetricId::Makespan, 1, 0, -0.5)}},
        {"in less than half the time", {less(MetricId::Makespan, 1, 0, 0.5)}},
    };
    // Measured on 2 and 4 H200s (NVLink, NCCL 2.28): 4 buckets 5-7 % sooner, exposed
    // communication 49 % -> 27-33 %, 45-57 % of it beside a kernel; NCCL's kernels and a
    // model kernel released together took 0.98 x their times alone (collectiveSmShare 0.9).
    l.prediction.answer = 0;
    l.expectations = {about(MetricId::Makespan, 1, 0, 0.10), less(MetricId::ExposedComm, 1, 0, 0.25),
                      above(MetricId::CommOverlap, 1, 0.4), below(MetricId::CommOverlap, 0, 0.1)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::ExposedComm, MetricId::CommOverlap, MetricId::Efficiency},
                          {{0, 1}});
    lessons.push_back(std::move(l));
  }
  {
    Lesson l;
    l.id = "pipeline-bubble";
    l.title = "Pipeline stages: the bubble and micro-batches";
    l.lookFor =
        "The model is split into two stages, one per GPU: GPU 0 runs the first half of every batch and hands its "
        "activations to GPU 1 by a peer copy over the link. With the whole batch as one piece, GPU 1 waits while GPU 0 "
        "works and GPU 0 waits while GPU 1 works: the bubble (hatched: waiting for a peer's activation). Split each "
        "batch into micro-batches and the stages work side by side; only the pipeline's fill and drain stay idle, "
        "(stages - 1) / (micro-batches + stages - 1) of the time.";
    PipelineConfig base = async;
    base.streams = 2;
    base.devices = {0, 1};
    base.parallel = ParallelMode::Pipeline;
    base.modelFlopsPerByte = 2100;  // each stage gets half: about a copy's time per stage
    base.batchCount = 8;
    // The activations handed on are half the batch's size, split with it.
    auto micro = [&](int m) {
      PipelineConfig c = base;
      c.microBatches = m;
      c.activationBytes = (16ull << 20) / std::uint64_t(m);
      return c;
    };
    l.runs = {{"1 micro-batch", micro(1), ""}, {"4 micro-batches", micro(4), ""}, {"8 micro-batches", micro(8), ""}};
    l.prediction.question = "How much sooner will the run finish with each batch in 4 micro-batches instead of 1?";
    l.prediction.choices = {
        {"about the same (within 10%)", {about(MetricId::Makespan, 1, 0, 0.10)}},
        {"10% to 40% sooner", {less(MetricId::Makespan, 1, 0, 0.10), greater(MetricId::Makespan, 1, 0, -0.4)}},
        {"more than 40% sooner", {less(MetricId::Makespan, 1, 0, 0.4)}},
    };
    l.prediction.answer = 2;
    // Measured on 2 H200s: idle compute 77-78 % -> 58-59 % with 4 micro-batches (the input
    // copies to the first stage stay); 47 % on the simulator's h200 profile.
    l.expectations = {less(MetricId::Makespan, 1, 0, 0.4), less(MetricId::IdleCompute, 1, 0, 0.2),
                      less(MetricId::Makespan, 2, 1, 0.05)};
    l.numbers = numbersOf(labelsOf(l.runs), {MetricId::IdleCompute, MetricId::Efficiency}, {{0, 1}, {1, 2}});
    lessons.push_back(std::move(l));
  }
  for (std::size_t i = 0; i < lessons.size(); ++i) lessons[i].number = int(i + 1);
  return lessons;
}

}  // namespace

const std::vector<Lesson>& builtinLessons() {
  static const std::vector<Lesson> lessons = makeLessons();
  return lessons;
}

const Lesson* findLesson(std::string_view numberOrId) {
  for (const auto& l : builtinLessons())
    if (l.id == numberOrId || std::to_string(l.number) == numberOrId) return &l;
  return nullptr;
}

}  // namespace pipescope
