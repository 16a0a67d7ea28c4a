#pragma once
// A/B comparison of two runs: one row per figure with A, B, the difference and which
// is better. The values are the two runs' Metrics, unchanged.
#include <optional>
#include <string>
#include <vector>

#include "analysis/MetricCatalog.h"
#include "metrics/Metrics.h"

namespace pipescope {

enum class Winner : std::uint8_t { A, B, Same, NotComparable };
/// "A", "B", "same", "".
std::string_view toString(Winner w);

struct ComparisonRow {
  std::string label;               ///< "makespan"
  std::string key;                 ///< "makespan_ns", "bottleneck"
  std::optional<MetricId> metric;  ///< nullopt for the bottleneck row
  double a = 0, b = 0;
  double difference = 0;        ///< b - a
  std::optional<double> ratio;  ///< b / a (nullopt when a is 0)
  std::string aText, bText;     ///< formatted values ("24.1 ms", "copy-bound")
  std::string differenceText;   ///< "-36.9 ms (-61%)", "2.6x", "+14 pts", "changed"
  Winner better = Winner::NotComparable;
};

struct ComparisonTable {
  std::string aName, bName;
  std::vector<ComparisonRow> rows;
  const ComparisonRow* find(std::string_view key) const;
};

/// Values closer than this relative difference count as the same.
inline constexpr double kSameRelative = 0.01;

ComparisonTable compareRuns(const Metrics& a, const Metrics& b, std::string aName = "A", std::string bName = "B");

}  // namespace pipescope
