#pragma once
// Which rows the timeline shows for a grouping, in which order, and where.
#include <QString>
#include <cstdint>
#include <vector>

#include "trace/Lane.h"

namespace pipescope::ui {

/// By stream: host threads and streams. By engine: host threads and the hardware
/// engines. Both: host threads, streams, then engines (a GPU op appears twice).
enum class LaneGrouping { ByStream, ByEngine, Both };
QString toString(LaneGrouping g);

struct LaneRow {
  std::uint16_t lane = 0;  ///< Trace lane id
  LaneKind kind = LaneKind::HostSubmit;
  QString name;
  int top = 0;     ///< y of the row in content coordinates (0 = first row)
  int height = 0;
  /// Non-empty on the first row of a section ("Host threads", "Streams", "Engines"):
  /// a section header band of LaneLayout::kSectionHeight sits just above `top`.
  QString section;
};

struct LaneLayout {
  static constexpr int kRowHeight = 28;     ///< the least a row gets
  static constexpr int kMaxRowHeight = 60;  ///< rows grow up to this to fill a tall view
  static constexpr int kSectionHeight = 20;

  std::vector<LaneRow> rows;
  int contentHeight = 0;

  /// The row containing content y, or nullptr.
  const LaneRow* rowAt(int y) const;
  /// The row showing lane `id`, or nullptr when the grouping hides it.
  const LaneRow* rowOf(std::uint16_t id) const;
};

/// `availableHeight` > 0: rows share that height (between kRowHeight and
/// kMaxRowHeight each), so a few lanes fill a projected window instead of leaving
/// an empty band under them; 0: every row is kRowHeight.
LaneLayout layoutLanes(const std::vector<Lane>& lanes, LaneGrouping grouping, int availableHeight = 0);

}  // namespace pipescope::ui
