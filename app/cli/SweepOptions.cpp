#include "SweepOptions.h"

#include <stdexcept>

#include "sim/DeviceProfile.h"
#include "sweep/AxisLists.h"

namespace pipescope::cli {

namespace {

std::string optionName(const std::string& arg) {
  const std::size_t eq = arg.find('=');
  return arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
}

const Option* findOption(const OptionSet& set, const std::string& name) {
  for (const auto& o : set.options())
    if (o.name == name) return &o;
  return nullptr;
}

template <typename F>
auto listOrUsage(F&& parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& SweepOptionParser::excludedRunOptions() {
  static const std::vector<std::pair<std::string, std::string>> excluded{
      {"batch-samples", "give the grid's batch sizes in bytes with --batch (e.g. --batch 1M,4M); --sample-bytes sets the sample size"},
      {"trace", "a sweep writes its table with --csv and --json; open a point's timeline in the app's Sweep view"},
      {"max-ops", "a sweep keeps at most 4,000,000 ops of traces in all"},
  };
  return excluded;
}

SweepOptionParser::SweepOptionParser() {
  using namespace sweep_limits;
  sweep_.group("Grid (comma-separated lists; every combination is one point)");
  sweep_.value("batch", "SIZES",
               "batch sizes in bytes, e.g. 1M,4M,16M,64M (units K, M, G, binary; without it, --config's batch "
               "x1/4, x1/2, x1, x2, x4); each must be a whole number of "
               "samples of --sample-bytes (default 512K). Required unless --config is given",
               [this](const std::string& v) { batchList_ = v; });
  sweep_.value("streams", "COUNTS", "stream counts, e.g. 1,2,4,8 (each 1.." + std::to_string(limits::kMaxStreams) +
                                        "; default 1,2,4,8)",
               [this](const std::string& v) { streamList_ = v; });
  sweep_.value("memory", "KINDS",
               "host memory types as a grid axis, e.g. pageable,pinned (" + choices(hostMemoryNames()) +
                   "; default: the base configuration's, pinned)",
               [this](const std::string& v) { memoryList_ = v; });
  sweep_.value("model", "MODELS",
               "model presets as a grid axis, e.g. light,heavy (" + choices(modelPresetNames()) +
                   "; default: the base configuration's)",
               [this](const std::string& v) { modelList_ = v; });

  sweep_.value("gpus", "COUNTS",
               "GPU counts as a grid axis, e.g. 1,2,4 (each 1.." + std::to_string(limits::kMaxGpus) +
                   "; the base's first N --devices, else GPUs 0..N-1); with 1 among them the recommendation "
                   "states each count's scaling efficiency",
               [this](const std::string& v) { gpuList_ = v; });
  sweep_.value("buckets", "COUNTS",
               "all-reduce buckets as a grid axis, e.g. 0,1,4,16 (needs --allreduce-bytes and several GPUs)",
               [this](const std::string& v) { bucketList_ = v; });
  sweep_.value("micro-batches", "COUNTS",
               "micro-batches per batch as a grid axis, e.g. 1,4,8 (needs --parallel pipeline)",
               [this](const std::string& v) { microList_ = v; });

  sweep_.group("Measurement of each point");
  sweep_.value("batches", "N",
               "measured batches per point and repetition, 1.." + std::to_string(limits::kMaxBatchCount) +
                   " (default 50); with --seconds, the minimum",
               [this](const std::string& v) {
                 request_.spec.batches = int(parseInteger("batches", v, 1, limits::kMaxBatchCount));
               });
  sweep_.value("seconds", "S",
               "time budget per point: run about S seconds of pipeline time (sized by a short probe run), "
               "0.." + std::to_string(int(kMaxTimeBudgetSec)) + " (default 0 = use --batches)",
               [this](const std::string& v) {
                 const double s = parseNumber("seconds", v);
                 if (s < 0 || s > kMaxTimeBudgetSec)
                   throw UsageError("--seconds = " + v + ": allowed 0.." + std::to_string(int(kMaxTimeBudgetSec)));
                 request_.spec.timeBudgetSec = s;
               });
  sweep_.value("warmup", "N",
               "batches run first and excluded from every figure, 0.." + std::to_string(kMaxWarmup) + " (default 2)",
               [this](const std::string& v) { request_.spec.warmupBatches = int(parseInteger("warmup", v, 0, kMaxWarmup)); });
  sweep_.value("repeat", "R",
               "repetitions per point for the spread (median, min, max), 1.." + std::to_string(kMaxRepeats) +
                   " (default 3 on a GPU; the simulator is deterministic and runs each point once)",
               [this](const std::string& v) {
                 request_.spec.repeats = int(parseInteger("repeat", v, 1, kMaxRepeats));
                 request_.repeatGiven = true;
               });
  sweep_.value("predict", "PROFILE",
               "also run every point on the simulator with this device profile (a built-in name or a JSON file) and "
               "show its prediction beside the measurement",
               [this](const std::string& v) {
                 std::string error;
                 if (!loadDeviceProfile(v, error)) throw UsageError("--predict = '" + v + "': " + error);
                 request_.predictProfile = v;
               });
  sweep_.choices(builtinProfileNames());

  sweep_.group("Output");
  sweep_.value("csv", "FILE", "write the table as CSV, one row per point (written atomically)", [this](const std::string& v) {
    if (v.empty()) throw UsageError("--csv needs a file name");
    request_.csvPath = v;
  });
  sweep_.value("json", "FILE",
               "write the sweep as JSON (spec, every point, recommendation); the app opens it and draws its charts",
               [this](const std::string& v) {
                 if (v.empty()) throw UsageError("--json needs a file name");
                 request_.jsonPath = v;
               });
  sweep_.flag("quiet", "print no table (errors still go to stderr)", [this] { request_.quiet = true; });
  sweep_.flag("progress", "show progress on stderr even when it is not a terminal", [this] { request_.progress = true; });
  sweep_.flag("no-progress", "never show progress", [this] { request_.noProgress = true; });
}

SweepRequest SweepOptionParser::parse(const std::vector<std::string>& args) {
  request_ = SweepRequest{};
  batchList_.clear();
  streamList_ = "1,2,4,8";
  memoryList_.clear();
  modelList_.clear();
  gpuList_.clear();
  bucketList_.clear();
  microList_.clear();

  // Route each option (with its value) to the sweep's table or to run's.
  std::vector<std::string> sweepArgs, runArgs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      runArgs.push_back(arg);  // run's parser explains a positional argument
      continue;
    }
    const std::string name = optionName(arg);
    for (const auto& [excluded, instead] : excludedRunOptions())
      if (name == excluded) throw UsageError("--" + name + " is not a sweep option: " + instead);
    const Option* own = findOption(sweep_, name);
    const Option* runs = own ? nullptr : findOption(run_.options(), name);
    auto& into = own ? sweepArgs : runArgs;
    into.push_back(arg);
    const Option* o = own ? own : runs;
    if (o && !o->valueName.empty() && arg.find('=') == std::string::npos && i + 1 < args.size())
      into.push_back(args[++i]);
  }
  sweep_.parse(sweepArgs);
  const RunRequest run = run_.parse(runArgs);
  request_.spec.base = run.config;
  request_.backend = run.backend;
  request_.presetName = run.presetName;
  request_.origins = run.origins;
  request_.origins.set("batch-samples", {ConfigOrigin::Kind::Option, "--batch"});
  request_.origins.set("streams", {ConfigOrigin::Kind::Option, "--streams"});

  if (batchList_.empty() && run.configFiles.empty())
    throw UsageError("--batch is required: the batch sizes to sweep, e.g. --batch 1M,4M,16M,64M (or give --config "
                     "FILE, e.g. one written by 'analyze --derive-config', to sweep around its batch size)");
  if (batchList_.empty()) {
    request_.spec.batchSamples = batchSamplesAround(run.config);  // its batch x1/4 .. x4
  } else {
    const auto sizes = listOrUsage([&] { return parseSizeList("--batch", batchList_); });
    request_.spec.batchSamples = listOrUsage([&] { return batchSamplesFor("--batch", sizes, run.config.sampleBytes); });
  }
  request_.spec.streams = listOrUsage([&] { return parseCountList("--streams", streamList_); });
  if (!memoryList_.empty()) request_.origins.set("memory", {ConfigOrigin::Kind::Option, "--memory"});
  if (!modelList_.empty()) request_.origins.set("model", {ConfigOrigin::Kind::Option, "--model"});
  if (!memoryList_.empty()) request_.spec.memories = listOrUsage([&] { return parseMemoryList("--memory", memoryList_); });
  if (!modelList_.empty()) request_.spec.models = listOrUsage([&] { return parseModelList("--model", modelList_); });
  if (!gpuList_.empty()) request_.spec.gpus = listOrUsage([&] { return parseCountList("--gpus", gpuList_); });
  if (!bucketList_.empty())
    request_.spec.buckets = listOrUsage([&] { return parseCountList("--buckets", bucketList_, 0); });
  if (!microList_.empty())
    request_.spec.microBatches = listOrUsage([&] { return parseCountList("--micro-batches", microList_); });
  if (!request_.repeatGiven) request_.spec.repeats = 3;
  return request_;
}

std::string SweepOptionParser::help() const {
  // run's knobs, less the ones the grid replaces, under their own headings.
  OptionSet base;
  for (const auto& o : run_.options().options()) {
    if (findOption(sweep_, o.name)) continue;
    bool excluded = false;
    for (const auto& e : excludedRunOptions()) excluded = excluded || e.first == o.name;
    if (excluded || o.group == "Output") continue;
    base.group("Base configuration: " + o.group);
    if (o.valueName.empty())
      base.flag(o.name, o.help, [] {});
    else
      base.value(o.name, o.valueName, o.help, [](const std::string&) {}), base.choices(o.choices);
  }
  return "usage: pipescope-cli sweep --batch SIZES [--streams COUNTS] [options]\n"
         "       pipescope-cli sweep --config FILE.json [--streams COUNTS] [options]\n"
         "\n"
         "Runs the pipeline for every combination of batch size and stream count (and, optionally, host memory\n"
         "type and model preset), each point after a warm-up and repeated for a spread, then prints a table and\n"
         "recommends the smallest configuration (by buffer memory) within 3% of the best throughput, and for\n"
         "each batch size the stream count beyond which more streams stop helping.\n"
         "Progress (point i/N, time left) goes to stderr. Ctrl-C stops the sweep and keeps the finished points.\n" +
         sweep_.help() + base.help() +
         "\nExit status: 0 the sweep finished (or was stopped with Ctrl-C), 1 every point failed or a file could\n"
         "not be written, 2 bad option or value.\n"
         "\nExamples:\n"
         "  pipescope-cli sweep --backend sim --batch 1M,4M,16M,64M --streams 1,2,4,8\n"
         "  pipescope-cli sweep --batch 4M,16M --streams 1,2,4 --memory pageable,pinned --csv sweep.csv\n"
         "  pipescope-cli sweep --config derived.json --profile h200-calibrated   (a PyTorch trace's what-if:\n"
         "      'pipescope-cli analyze trace.json --derive-config derived.json' writes it)\n"
         "  pipescope-cli sweep --backend cuda --batch 1M,4M,16M,64M --batches 20 --predict h200 --json sweep.json\n"
         "  pipescope-cli sweep --backend sim --batch 16M --streams 2 --gpus 1,2,4 --allreduce-bytes 64M --buckets 0,4\n";
}

}  // namespace pipescope::cli
