#include "config/ConfigJson.h"

#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace pipescope {

using nlohmann::json;

json configToJson(const PipelineConfig& c) {
  json j{{"mode", toString(c.mode)},
              {"memory", toString(c.memory)},
              {"streams", c.streams},
              {"order", toString(c.order)},
              {"batch-samples", c.batchSamples},
              {"sample-bytes", c.sampleBytes},
              {"batches", c.batchCount},
              {"normalize", c.normalizeKernel},
              {"model", toString(c.model)},
              {"model-flops-per-byte", c.modelFlopsPerByte},
              {"cpu-workers", c.cpuWorkers},
              {"preprocess-ops-per-byte", c.preprocessOpsPerByte},
              {"postprocess-ops-per-byte", c.postprocessOpsPerByte},
              {"residency", toString(c.residency)},
              {"output-ratio", c.outputRatio},
              {"roi", c.roiFraction},
              {"chunks", c.transferChunks},
              {"sync", toString(c.sync)}};
  // The multi-GPU fields only where they differ from the one-GPU defaults, so a
  // one-GPU configuration is written exactly as before (and older builds read it).
  const PipelineConfig d;
  if (c.devices != d.devices) j["devices"] = c.devices;
  if (c.parallel != d.parallel) j["parallel"] = toString(c.parallel);
  if (c.allreduceBytes != d.allreduceBytes) j["allreduce-bytes"] = c.allreduceBytes;
  if (c.buckets != d.buckets) j["buckets"] = c.buckets;
  if (c.activationBytes != d.activationBytes) j["activation-bytes"] = c.activationBytes;
  if (c.microBatches != d.microBatches) j["micro-batches"] = c.microBatches;
  return j;
}

namespace {

[[noreturn]] void fail(const std::string& field, const std::string& expected, const json& got) {
  throw std::invalid_argument("config field '" + field + "': expected " + expected + ", got " + got.dump());
}

template <typename E>
void readEnum(const json& v, const std::string& field, E& out, std::optional<E> (*parse)(std::string_view),
              std::vector<std::string_view> (*names)()) {
  if (!v.is_string()) fail(field, "one of " + choices(names()), v);
  auto e = parse(v.get<std::string>());
  if (!e) fail(field, "one of " + choices(names()), v);
  out = *e;
}

template <typename I>
void readInt(const json& v, const std::string& field, I& out) {
  if (!v.is_number_integer()) fail(field, "an integer", v);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > std::uint64_t(std::numeric_limits<I>::max())) fail(field, "a smaller integer", v);
    out = static_cast<I>(u);
  } else {
    const auto s = v.get<std::int64_t>();
    if (s < std::int64_t(std::numeric_limits<I>::min()) ||
        (s > 0 && std::uint64_t(s) > std::uint64_t(std::numeric_limits<I>::max())))
      fail(field, "an integer in range", v);
    out = static_cast<I>(s);
  }
}

void readDouble(const json& v, const std::string& field, double& out) {
  if (!v.is_number()) fail(field, "a number", v);
  out = v.get<double>();
}

}  // namespace

PipelineConfig configFromJson(const json& j, PipelineConfig c) {
  if (!j.is_object()) throw std::invalid_argument("a configuration must be a JSON object, got " + j.dump());
  using Reader = std::function<void(const json&, const std::string&)>;
  const std::map<std::string, Reader> readers{
      {"mode", [&](const json& v, const std::string& f) { readEnum(v, f, c.mode, parseTransferMode, transferModeNames); }},
      {"memory", [&](const json& v, const std::string& f) { readEnum(v, f, c.memory, parseHostMemory, hostMemoryNames); }},
      {"streams", [&](const json& v, const std::string& f) { readInt(v, f, c.streams); }},
      {"order", [&](const json& v, const std::string& f) { readEnum(v, f, c.order, parseIssueOrder, issueOrderNames); }},
      {"batch-samples", [&](const json& v, const std::string& f) { readInt(v, f, c.batchSamples); }},
      {"sample-bytes", [&](const json& v, const std::string& f) { readInt(v, f, c.sampleBytes); }},
      {"batches", [&](const json& v, const std::string& f) { readInt(v, f, c.batchCount); }},
      {"normalize", [&](const json& v, const std::string& f) {
         if (!v.is_boolean()) fail(f, "true or false", v);
         c.normalizeKernel = v.get<bool>();
       }},
      {"model", [&](const json& v, const std::string& f) { readEnum(v, f, c.model, parseModelPreset, modelPresetNames); }},
      {"model-flops-per-byte", [&](const json& v, const std::string& f) { readDouble(v, f, c.modelFlopsPerByte); }},
      {"cpu-workers", [&](const json& v, const std::string& f) { readInt(v, f, c.cpuWorkers); }},
      {"preprocess-ops-per-byte", [&](const json& v, const std::string& f) { readDouble(v, f, c.preprocessOpsPerByte); }},
      {"postprocess-ops-per-byte", [&](const json& v, const std::string& f) { readDouble(v, f, c.postprocessOpsPerByte); }},
      {"residency", [&](const json& v, const std::string& f) { readEnum(v, f, c.residency, parseDataResidency, dataResidencyNames); }},
      {"output-ratio", [&](const json& v, const std::string& f) { readDouble(v, f, c.outputRatio); }},
      {"roi", [&](const json& v, const std::string& f) { readDouble(v, f, c.roiFraction); }},
      {"chunks", [&](const json& v, const std::string& f) { readInt(v, f, c.transferChunks); }},
      {"sync", [&](const json& v, const std::string& f) { readEnum(v, f, c.sync, parseSyncMode, syncModeNames); }},
      {"devices", [&](const json& v, const std::string& f) {
         if (!v.is_array()) fail(f, "an array of GPU ordinals such as [0, 2, 3]", v);
         if (v.size() > 64) fail(f, "at most 64 GPU ordinals", v);
         std::vector<int> devices;
         for (const json& d : v) {
           int ordinal = 0;
           readInt(d, f, ordinal);
           devices.push_back(ordinal);
         }
         c.devices = std::move(devices);
       }},
      {"parallel", [&](const json& v, const std::string& f) { readEnum(v, f, c.parallel, parseParallelMode, parallelModeNames); }},
      {"allreduce-bytes", [&](const json& v, const std::string& f) { readInt(v, f, c.allreduceBytes); }},
      {"buckets", [&](const json& v, const std::string& f) { readInt(v, f, c.buckets); }},
      {"activation-bytes", [&](const json& v, const std::string& f) { readInt(v, f, c.activationBytes); }},
      {"micro-batches", [&](const json& v, const std::string& f) { readInt(v, f, c.microBatches); }},
  };
  for (const auto& [key, value] : j.items()) {
    auto it = readers.find(key);
    if (it == readers.end()) {
      std::string known;
      for (const auto& r : readers) known += (known.empty() ? "" : ", ") + r.first;
      throw std::invalid_argument("unknown config field '" + key + "' (known fields: " + known + ")");
    }
    it->second(value, key);
  }
  return c;
}

PipelineConfig loadConfigFile(const std::string& path, PipelineConfig base, ConfigOrigins* origins) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open config file '" + path + "'");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error("config file '" + path + "' is not valid JSON: " + e.what());
  }
  PipelineConfig config;
  try {
    config = configFromJson(j, base);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("config file '" + path + "': " + e.what());
  }
  if (origins)
    for (const auto& [key, value] : j.items()) origins->set(key, {ConfigOrigin::Kind::File, path});
  return config;
}

}  // namespace pipescope
