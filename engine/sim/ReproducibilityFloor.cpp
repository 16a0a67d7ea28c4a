#include "sim/ReproducibilityFloor.h"

#include <algorithm>
#include <stdexcept>

#include "metrics/Spread.h"

namespace pipescope {

namespace {

/// The set's measured row for `config`, or nullptr (failed rows do not count).
const ValidationRow* rowFor(const ValidationRecord& set, const PipelineConfig& config) {
  for (const ValidationRow& r : set.report.rows)
    if (r.measuredNs > 0 && r.config == config) return &r;
  return nullptr;
}

}  // namespace

ReproducibilityFloor reproducibilityFloor(const std::vector<ValidationRecord>& sets, int minOtherSets) {
  if (sets.size() < 2)
    throw std::invalid_argument("a reproducibility floor compares measurements of one GPU from at least two sets; got " +
                                std::to_string(sets.size()));
  if (minOtherSets < 1) throw std::invalid_argument("each row needs at least one other set to compare with");
  for (const ValidationRecord& s : sets)
    if (s.measuredDevice != sets.front().measuredDevice)
      throw std::invalid_argument("the sets were measured on different devices ('" + sets.front().measuredDevice +
                                  "' and '" + s.measuredDevice + "'): a floor is one GPU's; give one GPU's sets");
  ReproducibilityFloor floor;
  floor.sets = int(sets.size());
  std::vector<PipelineConfig> judged;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    for (const ValidationRow& row : sets[i].report.rows) {
      if (row.measuredNs <= 0) continue;
      std::vector<double> others;
      for (std::size_t j = 0; j < sets.size(); ++j)
        if (j != i)
          if (const ValidationRow* peer = rowFor(sets[j], row.config)) others.push_back(peer->measuredNs);
      if (int(others.size()) < minOtherSets) {
        ++floor.rowsWithoutPeers;
        continue;
      }
      ValidationRow judgedRow = row;
      judgedRow.name = std::to_string(i + 1) + "/" + row.name;
      judgedRow.failure.clear();
      judgedRow.predictedNs = spreadOf(std::move(others)).median;
      judgedRow.predictedStages.clear();
      setValidationErrors(judgedRow);
      floor.report.rows.push_back(std::move(judgedRow));
      if (std::find(judged.begin(), judged.end(), row.config) == judged.end()) judged.push_back(row.config);
    }
  }
  floor.configurations = int(judged.size());
  summarize(floor.report);
  return floor;
}

}  // namespace pipescope
