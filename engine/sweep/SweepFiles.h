#pragma once
// Sweep results on disk: a CSV table (one row per point, for spreadsheets) and a
// versioned JSON document that reads back into a SweepResult (traces excluded), so
// the app can open a saved sweep and the chart tool can draw one without rerunning.
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "sweep/SweepResult.h"

namespace pipescope {

inline constexpr std::string_view kSweepJsonFormat = "pipescope-sweep";
inline constexpr int kSweepJsonVersion = 1;

/// A sweep file that cannot be read: names the file and what is wrong in it.
class SweepFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void writeSweepCsv(const SweepResult& result, std::ostream& out);
nlohmann::json sweepToJson(const SweepResult& result);
/// Throws SweepFileError naming the field when `j` is not a sweep document.
SweepResult sweepFromJson(const nlohmann::json& j);

/// Written atomically (temporary file, then rename); throw std::runtime_error naming
/// the file and the system error.
void saveSweepCsv(const SweepResult& result, const std::string& path);
void saveSweepJson(const SweepResult& result, const std::string& path);
/// Throws SweepFileError ("FILE: what is wrong").
SweepResult loadSweepJson(const std::string& path);

}  // namespace pipescope
