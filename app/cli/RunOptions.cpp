#include "RunOptions.h"

#include <cmath>
#include <limits>

#include "TraceOutput.h"
#include "config/ConfigJson.h"
#include "config/Presets.h"
#include "sim/DeviceProfile.h"

namespace pipescope::cli {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : sep) + e;
  return s;
}

std::string num(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

RunOptionParser::RunOptionParser() {
  using namespace limits;
  const PipelineConfig d;
  auto knob = [this](std::string name, std::string valueName, std::string help,
                     std::function<void(PipelineConfig&, const std::string&)> set) {
    options_.value(name, std::move(valueName), std::move(help), [this, set, name](const std::string& v) {
      // Values are checked now (so errors come in command-line order) and applied
      // after the presets and config files.
      PipelineConfig probe;
      set(probe, v);
      knobSteps_.push_back([this, set, v, name] {
        set(request_.config, v);
        request_.origins.set(name, {ConfigOrigin::Kind::Option, "--" + name});
      });
    });
  };
  auto knobFlag = [this](std::string name, std::string help, std::function<void(PipelineConfig&)> set) {
    // --no-normalize sets the field "normalize".
    const std::string field = name.rfind("no-", 0) == 0 ? name.substr(3) : name;
    options_.flag(name, std::move(help), [this, set, field, name] {
      knobSteps_.push_back([this, set, field, name] {
        set(request_.config);
        request_.origins.set(field, {ConfigOrigin::Kind::Option, "--" + name});
      });
    });
  };
  // Integer knobs accept any int here so that validate() explains an out-of-range
  // value with its reason; only non-numbers and overflow are rejected while parsing.
  auto intKnob = [&](const char* name, const char* valueName, std::string help, int PipelineConfig::*field) {
    knob(name, valueName, std::move(help), [name, field](PipelineConfig& c, const std::string& v) {
      c.*field = int(parseInteger(name, v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
    });
  };
  auto numKnob = [&](const char* name, const char* valueName, std::string help, double PipelineConfig::*field) {
    knob(name, valueName, std::move(help),
         [name, field](PipelineConfig& c, const std::string& v) { c.*field = parseNumber(name, v); });
  };

  options_.group("Configuration sources (knob options below always override them)");
  options_.value("preset", "NAME",
                 "start from a built-in preset: " + join(presetNames(), ", ") + " (see 'pipescope-cli presets')",
                 [this](const std::string& v) {
                   auto p = findPreset(v);
                   if (!p)
                     throw UsageError("--preset = '" + v + "': unknown preset; known presets: " +
                                      join(presetNames(), ", "));
                   request_.presetName = v;
                   baseSteps_.push_back([this, cfg = p->config, v] {
                     request_.config = cfg;
                     request_.origins.setAll({ConfigOrigin::Kind::Preset, v});
                   });
                 });
  options_.choices(presetNames());
  options_.value("config", "FILE.json",
                 "read configuration fields from a JSON file (the keys are the option names below, e.g. "
                 "{\"streams\": 4, \"memory\": \"pinned\"}); applied on top of --preset",
                 [this](const std::string& v) {
                   request_.configFiles.push_back(v);
                   baseSteps_.push_back(
                       [this, v] { request_.config = loadConfigFile(v, request_.config, &request_.origins); });
                 });

  options_.group("Transfers and streams");
  knob("mode", "MODE", "transfer mode: " + choices(transferModeNames()) + " (default " + std::string(toString(d.mode)) +
                           "); blocking = cudaMemcpy and a sync per batch, async = cudaMemcpyAsync on streams",
       [](PipelineConfig& c, const std::string& v) {
         c.mode = parseChoice<TransferMode>("mode", v, parseTransferMode, choices(transferModeNames()));
       });
  knob("memory", "KIND", "host memory: " + choices(hostMemoryNames()) + " (default " + std::string(toString(d.memory)) + ")",
       [](PipelineConfig& c, const std::string& v) {
         c.memory = parseChoice<HostMemory>("memory", v, parseHostMemory, choices(hostMemoryNames()));
       });
  intKnob("streams", "N", "CUDA streams, 1.." + std::to_string(kMaxStreams) + " (default 1; 1 in blocking mode)", &PipelineConfig::streams);
  knob("order", "ORDER",
       "issue order: " + choices(issueOrderNames()) +
           " (default depth-first: all stages of batch i, then i+1; breadth-first: all H2D, then all kernels, then "
           "all D2H)",
       [](PipelineConfig& c, const std::string& v) {
         c.order = parseChoice<IssueOrder>("order", v, parseIssueOrder, choices(issueOrderNames()));
       });
  knob("sync", "HOW", "host synchronisation: " + choices(syncModeNames()) + " (default " + std::string(toString(d.sync)) + ")",
       [](PipelineConfig& c, const std::string& v) {
         c.sync = parseChoice<SyncMode>("sync", v, parseSyncMode, choices(syncModeNames()));
       });

  options_.group("Batches");
  intKnob("batch-samples", "N",
          "samples per batch, 1.." + std::to_string(kMaxBatchSamples) + " (default " + std::to_string(d.batchSamples) +
              "); batch bytes = samples x sample bytes, at most " + formatBytes(kMaxBatchBytes),
          &PipelineConfig::batchSamples);
  knob("sample-bytes", "BYTES",
       "input bytes per sample, 4 B.." + formatBytes(kMaxSampleBytes) + "; accepts units K, M, G (binary): 512K, 32M (default " +
           formatBytes(d.sampleBytes) + ")",
       [](PipelineConfig& c, const std::string& v) { c.sampleBytes = parseByteCount("sample-bytes", v); });
  intKnob("batches", "N",
          "batches to run, 0.." + std::to_string(kMaxBatchCount) + " (default " + std::to_string(d.batchCount) +
              "); 0 runs until Ctrl-C",
          &PipelineConfig::batchCount);

  options_.group("GPU work");
  knobFlag("normalize", "run the normalisation kernel (default)", [](PipelineConfig& c) { c.normalizeKernel = true; });
  knobFlag("no-normalize", "skip the normalisation kernel", [](PipelineConfig& c) { c.normalizeKernel = false; });
  knob("model", "MODEL",
       "model stage: " + choices(modelPresetNames()) +
           " (default custom: a synthetic kernel costing --model-flops-per-byte; light/heavy: GEMMs sized like a "
           "small/large image network)",
       [](PipelineConfig& c, const std::string& v) {
         c.model = parseChoice<ModelPreset>("model", v, parseModelPreset, choices(modelPresetNames()));
       });
  numKnob("model-flops-per-byte", "X",
          "arithmetic intensity of the custom model, FLOP per input byte, 0.." + num(kMaxModelFlopsPerByte) +
              " (default " + num(d.modelFlopsPerByte) + "; 0 skips the model)",
          &PipelineConfig::modelFlopsPerByte);

  options_.group("CPU work");
  intKnob("cpu-workers", "N",
          "CPU threads sharing pre- and postprocessing, 1.." + std::to_string(kMaxCpuWorkers) + " (default " +
              std::to_string(d.cpuWorkers) + ")",
          &PipelineConfig::cpuWorkers);
  numKnob("preprocess-ops-per-byte", "X",
          "CPU work per input byte, 0.." + num(kMaxCpuOpsPerByte) + " (default 0 = no preprocessing)",
          &PipelineConfig::preprocessOpsPerByte);
  numKnob("postprocess-ops-per-byte", "X",
          "CPU work per output byte, 0.." + num(kMaxCpuOpsPerByte) + " (default 0 = no postprocessing)",
          &PipelineConfig::postprocessOpsPerByte);

  options_.group("Data movement");
  knob("residency", "WHERE",
       "input data: " + choices(dataResidencyNames()) +
           " (default every-batch: copied in each batch; resident: copied once and kept on the GPU)",
       [](PipelineConfig& c, const std::string& v) {
         c.residency = parseChoice<DataResidency>("residency", v, parseDataResidency, choices(dataResidencyNames()));
       });
  numKnob("output-ratio", "X",
          "output bytes per input byte, greater than 0, at most " + num(kMaxOutputRatio) + " (default 1)",
          &PipelineConfig::outputRatio);
  numKnob("roi", "FRACTION",
          "fraction of the output copied back (region of interest), greater than 0, at most 1 (default 1)",
          &PipelineConfig::roiFraction);
  intKnob("chunks", "N",
          "pieces each copy is split into, 1.." + std::to_string(kMaxTransferChunks) + " (default 1 = one large copy)",
          &PipelineConfig::transferChunks);

  options_.group("Several GPUs");
  knob("gpus", "N",
       "GPUs to run on, 1.." + std::to_string(kMaxGpus) + " (default 1): GPUs 0..N-1; --devices picks other ones. "
           "The simulator models up to " + std::to_string(kMaxGpus) + "; a CUDA run needs that many GPUs",
       [this](PipelineConfig& c, const std::string& v) {
         const int n = int(parseInteger("gpus", v, 1, kMaxGpus));
         c.devices.clear();
         for (int g = 0; g < n; ++g) c.devices.push_back(g);
         gpusGiven_ = true;
       });
  knob("devices", "LIST",
       "the GPUs to run on by CUDA ordinal, e.g. 0,2,3 (default 0); each once, at most " + std::to_string(kMaxGpus),
       [this](PipelineConfig& c, const std::string& v) {
         auto list = parseDeviceList(v);
         if (!list)
           throw UsageError("--devices = '" + v + "': expected GPU ordinals separated by commas, e.g. 0,2,3");
         c.devices = *list;
         devicesGiven_ = true;
       });
  knob("parallel", "MODE",
       "how several GPUs share the work: " + choices(parallelModeNames()) +
           " (default data: batches dealt across the GPUs, each runs the whole pipeline; pipeline: the model's "
           "kernels split into stages, stage k on GPU k, activations handed on by peer copies)",
       [](PipelineConfig& c, const std::string& v) {
         c.parallel = parseChoice<ParallelMode>("parallel", v, parseParallelMode, choices(parallelModeNames()));
       });
  knob("allreduce-bytes", "BYTES",
       "data parallel: gradient bytes all-reduced across the GPUs (NCCL) after each step's kernels, 0.." +
           formatBytes(kMaxAllreduceBytes) + "; units K, M, G (default 0 = no gradient exchange)",
       [](PipelineConfig& c, const std::string& v) { c.allreduceBytes = parseByteCount("allreduce-bytes", v); });
  intKnob("buckets", "K",
          "data parallel: the all-reduce in K buckets, each issued as soon as its share of the kernels is done so it "
          "overlaps the rest, 0.." + std::to_string(kMaxBuckets) + " (default 1; 0 = one all-reduce after all compute)",
          &PipelineConfig::buckets);
  knob("activation-bytes", "BYTES",
       "pipeline parallel: bytes each micro-batch hands from one stage's GPU to the next by a peer copy, 0.." +
           formatBytes(kMaxActivationBytes) + " (default 0: the stages only wait for each other)",
       [](PipelineConfig& c, const std::string& v) { c.activationBytes = parseByteCount("activation-bytes", v); });
  intKnob("micro-batches", "M",
          "pipeline parallel: micro-batches per batch, so the stages overlap (GPipe), 1.." +
              std::to_string(kMaxMicroBatches) + " (default 1)",
          &PipelineConfig::microBatches);

  options_.group("Backend");
  options_.value("backend", "KIND",
                 "sim|cuda|auto (default auto: the CUDA GPU when there is one, else the simulator)",
                 [this](const std::string& v) {
                   request_.backend.choice = parseChoice<BackendChoice>("backend", v, parseBackendChoice, "sim|cuda|auto");
                 });
  options_.value("profile", "NAME|FILE",
                 "simulator device profile: a built-in name (" + join(builtinProfileNames(), ", ") +
                     ") or a profile JSON file (default h200; see 'pipescope-cli profiles'); on a GPU also the profile the "
                     "advice predicts with (default: this machine's calibration, else the built-in of its model)",
                 [this](const std::string& v) {
                   std::string error;
                   if (!loadDeviceProfile(v, error)) throw UsageError("--profile = '" + v + "': " + error);
                   request_.backend.simulatorProfile = v;
                   request_.profileGiven = true;
                 });
  options_.choices(builtinProfileNames());
  options_.value("device", "N", "CUDA device index of a one-GPU run, 0..63 (default 0; several GPUs: --devices)",
                 [this](const std::string& v) {
    request_.backend.cudaDevice = int(parseInteger("device", v, 0, 63));
  });
  options_.value("slowdown", "X",
                 "simulator: wall-clock seconds per simulated second, 0..10000 (default 0 = as fast as possible)",
                 [this](const std::string& v) {
                   const double x = parseNumber("slowdown", v);
                   if (x < 0 || x > 10000) throw UsageError("--slowdown = " + v + ": allowed 0..10000");
                   request_.backend.simulatorSlowdown = x;
                 });

  options_.group("Output");
  options_.value("trace", "FILE",
                 "write the recorded trace to FILE (" + traceFormatHelp() +
                     "). A native trace is streamed while the run goes on, in chunks synced to disk at least once "
                     "a second, so a crash or kill loses at most the last second and the file still opens; '-' "
                     "or /dev/stdout streams it to standard output (the summary then goes to stderr). A FIFO or "
                     "symbolic link is written through; an existing file keeps its permissions",
                 [this](const std::string& v) {
                   if (v.empty()) throw UsageError("--trace needs a file name");
                   request_.tracePath = v;
                 });
  options_.value("max-ops", "N",
                 "keep at most about N ops in memory, 0..10^10 (default 0 = keep all; runs with --batches 0 keep "
                 "4194304); metrics then cover the ops kept",
                 [this](const std::string& v) { request_.maxOps = std::uint64_t(parseInteger("max-ops", v, 0, 10'000'000'000)); });
  options_.flag("json", "print the summary as JSON on stdout (for scripts); messages still go to stderr",
                [this] { request_.json = true; });
  options_.flag("quiet", "print no summary table (errors still go to stderr)", [this] { request_.quiet = true; });
  options_.flag("progress", "show progress on stderr even when it is not a terminal", [this] { request_.progress = true; });
  options_.flag("no-progress", "never show progress", [this] { request_.noProgress = true; });
}

RunRequest RunOptionParser::parse(const std::vector<std::string>& args) {
  request_ = RunRequest{};
  baseSteps_.clear();
  knobSteps_.clear();
  gpusGiven_ = devicesGiven_ = false;
  options_.parse(args);
  if (gpusGiven_ && devicesGiven_)
    throw UsageError("--gpus and --devices both choose the GPUs: give one of them (--gpus 4 runs on GPUs 0-3, "
                     "--devices 0,2,3 on those three)");
  for (auto& step : baseSteps_) step();
  for (auto& step : knobSteps_) step();
  if (request_.maxOps == 0 && request_.config.runsUntilStopped()) request_.maxOps = 4u << 20;
  return request_;
}

std::string RunOptionParser::help() const {
  return "usage: pipescope-cli run [options]\n"
         "\n"
         "Runs the pipeline (CPU preprocessing, H2D copy, GPU compute, D2H copy, CPU postprocessing) on a CUDA GPU\n"
         "or on the simulator, records every operation, and prints what the run achieved and what limited it.\n"
         "Ctrl-C stops the run cleanly and still prints the summary of what was recorded.\n"
         "Option values go after a space or '=': --streams 4, --streams=4.\n" +
         options_.help() +
         "\nExit status: 0 the run finished (or was stopped with Ctrl-C), 1 the run failed, 2 bad option or value.\n"
         "\nExamples:\n"
         "  pipescope-cli run --preset multi-stream --backend sim\n"
         "  pipescope-cli run --preset naive --sample-bytes 1M --batches 64 --trace naive.json\n"
         "  pipescope-cli run --config my.json --streams 8 --json\n"
         "  pipescope-cli run --backend sim --gpus 4 --allreduce-bytes 64M --buckets 4\n"
         "  pipescope-cli run --backend sim --gpus 2 --parallel pipeline --micro-batches 8 --activation-bytes 8M\n";
}

}  // namespace pipescope::cli
