#include "sim/ProfileMerge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "metrics/Spread.h"

namespace pipescope {

namespace {

using json = nlohmann::json;

double median(std::vector<double> v) { return spreadOf(std::move(v)).median; }

/// The value of a point (what is measured), as opposed to where it was measured.
bool isValueKey(const std::string& key) {
  return key == "gbps" || key == "ns" || key == "nsPerByte" || key == "speedup" || key == "factor";
}

/// A curve (an array of {x, value} points): the median value at each x that at least
/// half of the curves have; points keep the x order. A curve of curves (points
/// {x, "<key>": [curve]}, such as one curve by streams at each size): at each x that
/// at least half have, their curves merged the same way.
json mergeCurve(const std::vector<const json*>& curves) {
  std::string xKey, yKey;
  for (const json* c : curves)
    for (const json& point : *c)
      for (const auto& [k, v] : point.items()) (isValueKey(k) || v.is_array() ? yKey : xKey) = k;
  std::map<double, std::vector<const json*>> byX;
  std::map<double, json> xValue;  // the x as it was written (integer or not)
  for (const json* c : curves)
    for (const json& point : *c) {
      if (!point.contains(xKey) || !point.contains(yKey)) continue;
      const double x = point[xKey].get<double>();
      byX[x].push_back(&point[yKey]);
      xValue[x] = point[xKey];
    }
  json out = json::array();
  for (const auto& [x, ys] : byX) {
    if (2 * ys.size() < curves.size()) continue;
    if (ys.front()->is_array()) {
      out.push_back({{xKey, xValue[x]}, {yKey, mergeCurve(ys)}});
    } else {
      std::vector<double> values;
      for (const json* y : ys) values.push_back(y->get<double>());
      out.push_back({{xKey, xValue[x]}, {yKey, median(values)}});
    }
  }
  return out;
}

json mergeField(const std::vector<const json*>& values) {
  const json& first = *values.front();
  if (first.is_boolean()) {
    const auto yes = std::count_if(values.begin(), values.end(), [](const json* v) { return v->get<bool>(); });
    return 2 * std::size_t(yes) >= values.size();
  }
  if (first.is_number()) {
    std::vector<double> v;
    for (const json* x : values) v.push_back(x->get<double>());
    const double m = median(v);
    if (first.is_number_integer() || first.is_number_unsigned()) return std::uint64_t(std::llround(m));
    return m;
  }
  if (first.is_array() && (first.empty() || first.front().is_object())) return mergeCurve(values);
  return first;  // text: the caller writes its own
}

}  // namespace

DeviceProfile mergeProfiles(const std::vector<DeviceProfile>& profiles, const std::string& name) {
  if (profiles.size() < 2) throw std::invalid_argument("merging needs at least two profiles");
  for (const DeviceProfile& p : profiles)
    if (p.deviceName != profiles.front().deviceName)
      throw std::invalid_argument("the profiles describe different GPUs ('" + profiles.front().deviceName + "' and '" +
                                  p.deviceName + "'): merge calibrations of one GPU model only");
  std::vector<json> docs;
  for (const DeviceProfile& p : profiles) docs.push_back(profileToJson(p));
  std::map<std::string, std::vector<const json*>> fields;
  for (const json& d : docs)
    for (const auto& [k, v] : d.items()) fields[k].push_back(&v);
  json merged = json::object();
  for (const auto& [key, values] : fields) merged[key] = mergeField(values);
  merged.erase("validation");
  std::string sources;
  for (const DeviceProfile& p : profiles) sources += (sources.empty() ? "" : "; ") + p.source;
  merged["name"] = name;
  // "calibrated ..." first, as every calibrated profile's source: the analysis names
  // such a profile calibrated on the trace's device.
  merged["source"] = "calibrated on " + profiles.front().deviceName + " " + std::to_string(profiles.size()) +
                     " times, each figure the median over them (" + sources + ")";
  // Inputs are usually given oldest first: the last one's fitting runs are the current ones.
  if (!profiles.back().fitConfigurations.empty())
    merged["fitConfigurations"] = "the median of " + std::to_string(profiles.size()) +
                                  " calibrations; the last one's: " + profiles.back().fitConfigurations;
  merged["description"] = "the median of " + std::to_string(profiles.size()) + " calibrations of " +
                          profiles.front().deviceName + " (pipescope-cli profiles --merge)";
  return profileFromJson(merged);
}

}  // namespace pipescope
