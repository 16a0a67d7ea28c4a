#include "sim/ValidationFile.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "config/ConfigJson.h"
#include "metrics/Spread.h"

namespace pipescope {

namespace {
constexpr const char* kFormat = "pipescope-validation";
constexpr int kVersion = 1;
}  // namespace

std::string validationRecordToJson(const ValidationRecord& record) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["measuredDevice"] = record.measuredDevice;
  j["profile"] = record.profile;
  j["seed"] = record.seed ? nlohmann::json(*record.seed) : nlohmann::json(nullptr);
  j["recordedAt"] = record.recordedAt;
  auto& rows = j["rows"] = nlohmann::json::array();
  for (const ValidationRow& r : record.report.rows) {
    nlohmann::json row;
    row["name"] = r.name;
    row["config"] = configToJson(r.config);
    row["measuredRunsNs"] = r.measuredRunsNs;
    row["measuredStages"] = r.measuredStages;
    row["measuredLaunchNs"] = r.measuredLaunchNs;
    row["predictedNs"] = r.predictedNs;
    row["failure"] = r.failure;
    rows.push_back(std::move(row));
  }
  return j.dump(1) + "\n";
}

ValidationRecord loadValidationRecord(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open validation measurements '" + path + "'");
  const auto fail = [&](const std::string& what) {
    return std::runtime_error("validation measurements '" + path + "': " + what);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw fail("not a file written by 'pipescope-cli validate --save-measurements'");
  if (j.value("version", 0) != kVersion) throw fail("unsupported version " + j.value("version", nlohmann::json()).dump());
  ValidationRecord rec;
  try {
    rec.measuredDevice = j.at("measuredDevice").get<std::string>();
    rec.profile = j.at("profile").get<std::string>();
    if (!j.at("seed").is_null()) rec.seed = j.at("seed").get<std::uint64_t>();
    rec.recordedAt = j.at("recordedAt").get<std::string>();
    for (const auto& row : j.at("rows")) {
      ValidationRow r;
      r.name = row.at("name").get<std::string>();
      r.config = configFromJson(row.at("config"));
      r.measuredRunsNs = row.at("measuredRunsNs").get<std::vector<double>>();
      r.measuredStages = row.at("measuredStages").get<std::string>();
      r.measuredLaunchNs = row.value("measuredLaunchNs", 0.0);  // files before it: unknown
      r.predictedNs = row.at("predictedNs").get<double>();
      r.failure = row.at("failure").get<std::string>();
      const Spread s = spreadOf(r.measuredRunsNs);
      r.measuredNs = s.median;
      r.measuredMinNs = s.min;
      r.measuredMaxNs = s.max;
      if (r.ok() && r.measuredNs > 0 && r.predictedNs > 0) setValidationErrors(r);
      rec.report.rows.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("missing or wrong field (") + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    throw fail(std::string("bad configuration: ") + e.what());
  }
  summarize(rec.report);
  return rec;
}

}  // namespace pipescope
