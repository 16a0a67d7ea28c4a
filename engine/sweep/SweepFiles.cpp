#include "sweep/SweepFiles.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <unistd.h>

#include "config/ConfigJson.h"
#include "io/OutputFile.h"
#include "sweep/Recommendation.h"

namespace pipescope {

namespace {

using nlohmann::json;

std::string shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

json deviceToJson(const DeviceInfo& d) {
  return {{"backend", d.backend},         {"name", d.name},
          {"profile", d.profile},         {"compute_major", d.computeMajor},
          {"compute_minor", d.computeMinor}, {"copy_engines", d.copyEngines},
          {"pcie_generation", d.pcieGeneration}, {"pcie_width", d.pcieWidth},
          {"memory_bytes", d.memoryBytes}, {"driver_version", d.driverVersion},
          {"runtime_version", d.runtimeVersion}, {"timing_source", d.timingSource},
          {"note", d.note}};
}

json spreadToJson(const Spread& s) { return {{"median", s.median}, {"min", s.min}, {"max", s.max}}; }

json pointToJson(const SweepPointResult& p) {
  json reps = json::array();
  for (const auto& r : p.repetitions)
    reps.push_back({{"batches", r.batches},
                    {"makespan_ns", r.makespanNs},
                    {"samples_per_s", r.samplesPerSec},
                    {"batches_per_s", r.batchesPerSec},
                    {"efficiency", r.efficiency}});
  return {{"index", p.index},
          {"label", pointLabel(p.config, true, true)},
          {"gpus", p.config.gpuCount()},
          {"config", configToJson(p.config)},
          {"batch_bytes", p.config.batchBytes()},
          {"warmup_batches", p.warmupBatches},
          {"repetitions", reps},
          {"samples_per_s", spreadToJson(p.samplesPerSec)},
          {"makespan_ns", spreadToJson(p.makespanNs)},
          {"median_repetition", p.medianRepetition},
          {"efficiency", p.efficiency},
          {"input_gbps", p.inputGBps},
          {"bottleneck", std::string(toString(p.bottleneck))},
          {"bottleneck_sentence", p.bottleneckSentence},
          {"busy",
           {{"h2d", p.h2dBusy},
            {"d2h", p.d2hBusy},
            {"copy", p.copyBusy},
            {"compute", p.computeBusy},
            {"submit", p.submitBusy},
            {"workers", p.workersBusy}}},
          {"copy_engines", p.copyEngines},
          {"per_batch_ns",
           {{"h2d", p.perBatch.h2dNs},
            {"kernel", p.perBatch.kernelNs},
            {"d2h", p.perBatch.d2hNs},
            {"preprocess", p.perBatch.preprocessNs},
            {"postprocess", p.perBatch.postprocessNs}}},
          {"footprint_bytes", p.footprintBytes},
          {"state", std::string(toString(p.outcome.state))},
          {"message", p.outcome.message},
          {"trace_dropped", p.traceDropped},
          {"wall_seconds", p.wallSeconds}};
}

json pointsToJson(const std::vector<SweepPointResult>& points) {
  json a = json::array();
  for (const auto& p : points) a.push_back(pointToJson(p));
  return a;
}

// ---------------------------------------------------------------- reading
/// Reads fields of one JSON object, naming the path of a missing or mistyped field.
class Reader {
 public:
  Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) fail("an object");
  }
  template <typename T>
  T get(const char* key) const {
    const json& v = at(key);
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      throw SweepFileError(path_ + "." + key + ": wrong type (" + std::string(v.type_name()) + ")");
    }
  }
  double number(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) throw SweepFileError(path_ + "." + key + ": expected a number, found " + v.type_name());
    return v.get<double>();
  }
  Reader object(const char* key) const { return Reader(at(key), path_ + "." + key); }
  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) throw SweepFileError(path_ + "." + key + ": expected an array, found " + v.type_name());
    return v;
  }
  const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw SweepFileError(path_ + ": missing field '" + key + "'");
    return *it;
  }
  const std::string& path() const { return path_; }
  bool has(const char* key) const { return j_.contains(key); }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw SweepFileError(path_ + ": expected " + std::string(what) + ", found " + j_.type_name());
  }
  const json& j_;
  std::string path_;
};

template <typename E>
E enumFrom(const Reader& r, const char* key, std::optional<E> (*parse)(std::string_view)) {
  const std::string s = r.get<std::string>(key);
  if (auto e = parse(s)) return *e;
  throw SweepFileError(r.path() + "." + key + ": unknown value '" + s + "'");
}

std::optional<Bottleneck> parseBottleneck(std::string_view s) {
  for (Bottleneck b : {Bottleneck::CopyBound, Bottleneck::ComputeBound, Bottleneck::HostBound,
                       Bottleneck::LatencyBound, Bottleneck::Unknown, Bottleneck::CommunicationBound})
    if (toString(b) == s) return b;
  return std::nullopt;
}

std::optional<RunState> parseRunState(std::string_view s) {
  for (RunState st : {RunState::NotStarted, RunState::Running, RunState::Finished, RunState::Stopped, RunState::Failed})
    if (toString(st) == s) return st;
  return std::nullopt;
}

DeviceInfo deviceFrom(const Reader& r) {
  DeviceInfo d;
  d.backend = r.get<std::string>("backend");
  d.name = r.get<std::string>("name");
  d.profile = r.get<std::string>("profile");
  d.computeMajor = r.get<int>("compute_major");
  d.computeMinor = r.get<int>("compute_minor");
  d.copyEngines = r.get<int>("copy_engines");
  d.pcieGeneration = r.get<int>("pcie_generation");
  d.pcieWidth = r.get<int>("pcie_width");
  d.memoryBytes = r.get<std::uint64_t>("memory_bytes");
  d.driverVersion = r.get<std::string>("driver_version");
  d.runtimeVersion = r.get<std::string>("runtime_version");
  d.timingSource = r.get<std::string>("timing_source");
  d.note = r.get<std::string>("note");
  return d;
}

Spread spreadFrom(const Reader& r) { return {r.number("median"), r.number("min"), r.number("max")}; }

PipelineConfig configFrom(const Reader& parent, const char* key) {
  try {
    return configFromJson(parent.at(key));
  } catch (const std::invalid_argument& e) {
    throw SweepFileError(parent.path() + "." + key + ": " + e.what());
  }
}

SweepPointResult pointFrom(const Reader& r) {
  SweepPointResult p;
  p.index = r.get<std::size_t>("index");
  p.config = configFrom(r, "config");
  p.warmupBatches = r.get<int>("warmup_batches");
  const json& reps = r.array("repetitions");
  for (std::size_t i = 0; i < reps.size(); ++i) {
    Reader rr(reps[i], r.path() + ".repetitions[" + std::to_string(i) + "]");
    RepetitionFigures f;
    f.batches = rr.get<std::int64_t>("batches");
    f.makespanNs = rr.number("makespan_ns");
    f.samplesPerSec = rr.number("samples_per_s");
    f.batchesPerSec = rr.number("batches_per_s");
    f.efficiency = rr.number("efficiency");
    p.repetitions.push_back(f);
  }
  p.samplesPerSec = spreadFrom(r.object("samples_per_s"));
  p.makespanNs = spreadFrom(r.object("makespan_ns"));
  p.medianRepetition = r.get<std::size_t>("median_repetition");
  if (!p.repetitions.empty() && p.medianRepetition >= p.repetitions.size())
    throw SweepFileError(r.path() + ".median_repetition: " + std::to_string(p.medianRepetition) +
                         " is not a repetition (there are " + std::to_string(p.repetitions.size()) + ")");
  p.efficiency = r.number("efficiency");
  p.inputGBps = r.number("input_gbps");
  p.bottleneck = enumFrom<Bottleneck>(r, "bottleneck", parseBottleneck);
  p.bottleneckSentence = r.get<std::string>("bottleneck_sentence");
  const Reader busy = r.object("busy");
  p.h2dBusy = busy.number("h2d");
  p.d2hBusy = busy.number("d2h");
  p.copyBusy = busy.number("copy");
  p.computeBusy = busy.number("compute");
  p.submitBusy = busy.number("submit");
  p.workersBusy = busy.number("workers");
  p.copyEngines = r.get<int>("copy_engines");
  const Reader pb = r.object("per_batch_ns");
  p.perBatch = {pb.number("h2d"), pb.number("kernel"), pb.number("d2h"), pb.number("preprocess"),
                pb.number("postprocess")};
  p.footprintBytes = r.get<std::uint64_t>("footprint_bytes");
  p.outcome.state = enumFrom<RunState>(r, "state", parseRunState);
  p.outcome.message = r.get<std::string>("message");
  p.traceDropped = r.get<bool>("trace_dropped");
  p.wallSeconds = r.number("wall_seconds");
  return p;
}

std::vector<SweepPointResult> pointsFrom(const Reader& r, const char* key) {
  std::vector<SweepPointResult> points;
  const json& a = r.array(key);
  for (std::size_t i = 0; i < a.size(); ++i)
    points.push_back(pointFrom(Reader(a[i], r.path() + "." + key + "[" + std::to_string(i) + "]")));
  return points;
}

template <typename E>
std::vector<E> enumList(const Reader& r, const char* key, std::optional<E> (*parse)(std::string_view)) {
  std::vector<E> out;
  for (const auto& v : r.array(key)) {
    if (!v.is_string()) throw SweepFileError(r.path() + "." + key + ": expected names");
    auto e = parse(v.get<std::string>());
    if (!e) throw SweepFileError(r.path() + "." + key + ": unknown value '" + v.get<std::string>() + "'");
    out.push_back(*e);
  }
  return out;
}

}  // namespace

void writeSweepCsv(const SweepResult& r, std::ostream& out) {
  out << "index,memory,model,batch_samples,sample_bytes,batch_bytes,streams,warmup_batches,measured_batches,"
         "repetitions,samples_per_s_median,samples_per_s_min,samples_per_s_max,input_gbps,makespan_ns_median,"
         "makespan_ns_min,makespan_ns_max,efficiency,bottleneck,h2d_busy,compute_busy,d2h_busy,footprint_bytes,"
         "state,message,predicted_samples_per_s\n";
  for (const auto& p : r.points) {
    const auto& c = p.config;
    const SweepPointResult* pred = r.predictedPoint(p.index);
    out << p.index << ',' << toString(c.memory) << ',' << toString(c.model) << ',' << c.batchSamples << ','
        << c.sampleBytes << ',' << c.batchBytes() << ',' << c.streams << ',' << p.warmupBatches << ','
        << (p.repetitions.empty() ? 0 : p.repetitions.front().batches) << ',' << p.repetitions.size() << ','
        << shortest(p.samplesPerSec.median) << ',' << shortest(p.samplesPerSec.min) << ','
        << shortest(p.samplesPerSec.max) << ',' << shortest(p.inputGBps) << ',' << shortest(p.makespanNs.median)
        << ',' << shortest(p.makespanNs.min) << ',' << shortest(p.makespanNs.max) << ',' << shortest(p.efficiency)
        << ',' << toString(p.bottleneck) << ',' << shortest(p.h2dBusy) << ',' << shortest(p.computeBusy) << ','
        << shortest(p.d2hBusy) << ',' << p.footprintBytes << ',' << toString(p.outcome.state) << ','
        << csvField(p.outcome.message) << ',' << (pred && pred->ok() ? shortest(pred->samplesPerSec.median) : "")
        << '\n';
  }
}

nlohmann::json sweepToJson(const SweepResult& r) {
  const SweepSpec& s = r.spec;
  json memories = json::array(), models = json::array();
  for (auto m : s.memories) memories.push_back(std::string(toString(m)));
  for (auto m : s.models) models.push_back(std::string(toString(m)));
  json j = {{"format", kSweepJsonFormat},
            {"version", kSweepJsonVersion},
            {"backend", r.backend},
            {"device", deviceToJson(r.device)},
            {"spec",
             {{"base", configToJson(s.base)},
              {"batch_samples", s.batchSamples},
              {"streams", s.streams},
              {"memories", memories},
              {"models", models},
              {"gpus", s.gpus},
              {"buckets", s.buckets},
              {"micro_batches", s.microBatches},
              {"batches", s.batches},
              {"time_budget_s", s.timeBudgetSec},
              {"warmup_batches", s.warmupBatches},
              {"repeats", s.repeats},
              {"max_kept_ops", s.maxKeptOps}}},
            {"total_points", r.totalPoints},
            {"cancelled", r.cancelled},
            {"wall_seconds", r.wallSeconds},
            {"notes", r.notes},
            {"points", pointsToJson(r.points)}};
  if (!r.predicted.empty())
    j["predicted"] = {{"device", deviceToJson(r.predictedDevice)}, {"points", pointsToJson(r.predicted)}};
  // For readers that do not recompute it; sweepFromJson ignores it.
  const Recommendation rec = recommend(r);
  json knees = json::array();
  for (const auto& k : rec.knees)
    knees.push_back({{"point", k.pointIndex}, {"streams", k.streams}, {"gain_beyond", k.gainBeyond},
                     {"still_helping", k.stillHelping}, {"sentence", k.sentence}});
  json scaling = json::array();
  for (const auto& sp : rec.scaling)
    scaling.push_back({{"point", sp.pointIndex}, {"one_gpu_point", sp.oneGpuIndex}, {"gpus", sp.gpus},
                       {"efficiency", sp.efficiency}});
  j["recommendation"] = {{"valid", rec.valid},         {"chosen", rec.chosenIndex},
                         {"best", rec.bestIndex},       {"sentence", rec.sentence},
                         {"knees", knees},              {"scaling", scaling},
                         {"scaling_sentence", rec.scalingSentence}};
  return j;
}

SweepResult sweepFromJson(const nlohmann::json& j) {
  const Reader root(j, "sweep");
  const std::string format = root.get<std::string>("format");
  if (format != kSweepJsonFormat)
    throw SweepFileError("sweep.format: '" + format + "' is not a pipescope sweep (expected '" +
                         std::string(kSweepJsonFormat) + "')");
  const int version = root.get<int>("version");
  if (version != kSweepJsonVersion)
    throw SweepFileError("sweep.version: " + std::to_string(version) + " is not supported (this build reads version " +
                         std::to_string(kSweepJsonVersion) + "; use a newer pipescope)");
  SweepResult r;
  r.backend = root.get<std::string>("backend");
  r.device = deviceFrom(root.object("device"));
  const Reader spec = root.object("spec");
  r.spec.base = configFrom(spec, "base");
  r.spec.batchSamples = spec.get<std::vector<int>>("batch_samples");
  r.spec.streams = spec.get<std::vector<int>>("streams");
  r.spec.memories = enumList<HostMemory>(spec, "memories", parseHostMemory);
  r.spec.models = enumList<ModelPreset>(spec, "models", parseModelPreset);
  // Sweeps over several GPUs (absent in files from before them).
  if (spec.has("gpus")) r.spec.gpus = spec.get<std::vector<int>>("gpus");
  if (spec.has("buckets")) r.spec.buckets = spec.get<std::vector<int>>("buckets");
  if (spec.has("micro_batches")) r.spec.microBatches = spec.get<std::vector<int>>("micro_batches");
  r.spec.batches = spec.get<int>("batches");
  r.spec.timeBudgetSec = spec.number("time_budget_s");
  r.spec.warmupBatches = spec.get<int>("warmup_batches");
  r.spec.repeats = spec.get<int>("repeats");
  r.spec.maxKeptOps = spec.get<std::uint64_t>("max_kept_ops");
  r.totalPoints = root.get<std::size_t>("total_points");
  r.cancelled = root.get<bool>("cancelled");
  r.wallSeconds = root.number("wall_seconds");
  r.notes = root.get<std::vector<std::string>>("notes");
  r.points = pointsFrom(root, "points");
  if (j.contains("predicted")) {
    const Reader pred = root.object("predicted");
    r.predictedDevice = deviceFrom(pred.object("device"));
    r.predicted = pointsFrom(pred, "points");
  }
  return r;
}

void saveSweepCsv(const SweepResult& result, const std::string& path) {
  writeOutputFile(path, [&](std::ostream& out) { writeSweepCsv(result, out); });
}

void saveSweepJson(const SweepResult& result, const std::string& path) {
  writeOutputFile(path, [&](std::ostream& out) { out << sweepToJson(result).dump(1) << '\n'; });
}

SweepResult loadSweepJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepFileError(path + ": cannot open: " + std::strerror(errno));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw SweepFileError(path + ": not valid JSON: " + e.what());
  }
  try {
    return sweepFromJson(j);
  } catch (const SweepFileError& e) {
    throw SweepFileError(path + ": " + e.what());
  }
}

}  // namespace pipescope
