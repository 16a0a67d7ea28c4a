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

/// HostFirst (live runs): host threads, streams, engines — the order work flows in,
/// so the submit -> stream -> engine staircase reads top-down. GpuFirst (opened
/// traces): engines, streams, the host thread(s) calling CUDA, other host threads —
/// what a profile is opened for comes first, above the fold.
enum class LaneOrder { HostFirst, GpuFirst };

struct LaneLayoutOptions {
  LaneOrder order = LaneOrder::HostFirst;
  /// By lane id: lanes that only carry call-stack ranges (AnnotationLanes). They
  /// fold into one group row at the end of the host section.
  std::vector<bool> callStackOnly;
  bool callStacksExpanded = false;  ///< the group shows its lanes under the group row
  /// Several GPUs (or ranks): one title per device ("GPU 1 · NVIDIA H200 · busy 87%"),
  /// indexed like Lane::device. With more than one, each device's lanes form a group
  /// under its title, shared host lanes and communicators apart. Empty or one: the
  /// one-GPU layout.
  std::vector<QString> deviceTitles;
  /// By device: the group shows only its title band and one folded row.
  std::vector<bool> collapsedDevices;
  /// Row and section heights; larger for a larger font (a projector: TimelineView
  /// derives them from its font).
  int minRowHeight = 28;
  int maxRowHeight = 60;
  int sectionHeight = 20;
};

struct LaneRow {
  std::uint16_t lane = 0;  ///< Trace lane id
  LaneKind kind = LaneKind::HostSubmit;
  QString name;
  int top = 0;     ///< y of the row in content coordinates (0 = first row)
  int height = 0;
  /// The group row of the call-stack lanes (lane is kNoLane): clicking its name
  /// folds or unfolds them.
  bool group = false;
  /// Non-empty on the first row of a section ("Host threads", "Streams", "Engines"):
  /// a section header band of LaneLayout::kSectionHeight sits just above `top`.
  QString section;
  /// The device whose group this row's section band heads (clicking the band folds
  /// it), or -1. A folded group's one row is a group row with the same device.
  int device = -1;
};

struct LaneLayout {
  static constexpr int kRowHeight = 28;     ///< the least a row gets
  static constexpr int kMaxRowHeight = 60;  ///< rows grow up to this to fill a tall view
  static constexpr int kSectionHeight = 20;

  std::vector<LaneRow> rows;
  int contentHeight = 0;
  int sectionHeight = kSectionHeight;  ///< of the section header bands of this layout
  int foldableLanes = 0;  ///< call-stack lanes in the group (0: no group row)

  /// The row containing content y, or nullptr.
  const LaneRow* rowAt(int y) const;
  /// The row showing lane `id`, or nullptr when the grouping hides it.
  const LaneRow* rowOf(std::uint16_t id) const;
  /// The row whose section band contains content y, or nullptr.
  const LaneRow* sectionAt(int y) const;
};

/// `availableHeight` > 0: rows share that height (between the options' minimum and
/// maximum row heights, kRowHeight and kMaxRowHeight by default), so a few lanes fill
/// a projected window instead of leaving an empty band under them; 0: every row is
/// the minimum.
LaneLayout layoutLanes(const std::vector<Lane>& lanes, LaneGrouping grouping, int availableHeight = 0,
                       const LaneLayoutOptions& options = {});

}  // namespace pipescope::ui
