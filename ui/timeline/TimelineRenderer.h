#pragma once
// Paints the timeline (lane names, ruler, ops, waits, markers, selection) into any
// QPainter: the widget's paintEvent and the export path (renderTo) share it.
//
// Speed (DESIGN.md, "Timeline view"): per visible row, the ops of the visible
// range are found by binary search in the LaneIndex; runs of ops narrower than
// kFoldPx pixels fold into one mark (jumping over them by binary search, so a
// zoomed-out lane of millions of ops costs O(pixels x log ops)); the marks are
// cached per row, keyed on the visible range, the width and the indexed ops, and
// drawn as opaque, non-antialiased rectangles. Rows outside the viewport are
// skipped.
#include <QColor>
#include <QFont>
#include <QPalette>
#include <QRect>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "timeline/LaneIndex.h"
#include "timeline/LaneLayout.h"
#include "timeline/TimeAxis.h"
#include "timeline/TimelineOverlay.h"
#include "trace/Trace.h"

class QPainter;

namespace pipescope::ui {

/// A vertical line across the lanes with a label (e.g. "ideal bound").
struct TimelineMarker {
  std::int64_t timeNs = 0;
  QString label;
  QColor color;
  int labelRow = 0;  ///< labels of markers close together go on separate lines
};

/// One painted mark of a row: a single op (count == 1) or a folded run of ops.
struct OpMark {
  float x0 = 0, x1 = 0;       ///< pixels from the plot's left edge (x1 >= x0)
  std::uint64_t op = 0;       ///< global index of the (first) op
  std::uint32_t count = 1;    ///< ops represented
  std::int64_t fromNs = 0;    ///< time extent of the represented ops
  std::int64_t toNs = 0;
};

/// Marks for the ops of `lane` visible on `axis`. Ops at least foldPx wide are marks
/// of their own; consecutive narrower ops whose pixels touch fold into one mark that
/// covers all of their extent.
std::vector<OpMark> buildMarks(const LaneIndex& index, std::uint16_t lane, const TimeAxis& axis, double foldPx);

/// What the pointer is over.
struct TimelineHit {
  std::uint16_t lane = 0;
  std::uint64_t op = 0;       ///< global index of the op (the first one of a fold)
  std::uint32_t count = 1;    ///< > 1: a folded run of ops
  std::int64_t fromNs = 0, toNs = 0;
  bool onWait = false;        ///< the pointer is over the op's wait bar
};

using WaitColorizer = std::function<std::optional<QColor>(const Op&, std::size_t opIndex)>;

struct RenderState {
  const Trace* trace = nullptr;
  const LaneIndex* index = nullptr;
  const LaneLayout* layout = nullptr;
  TimeAxis axis;             ///< width = the plot width of the target
  int scrollY = 0;
  const std::vector<TimelineMarker>* markers = nullptr;
  const WaitColorizer* colorizer = nullptr;
  const TimelineOverlay* overlay = nullptr;  ///< painted under the ops of each row
  std::optional<std::pair<std::int64_t, std::int64_t>> selection;
  std::optional<TimelineHit> hovered;
  std::optional<double> cursorX;  ///< plot x of the pointer: a hairline on the ruler
  QPalette palette;
  QFont font;
};

class TimelineRenderer {
 public:
  static constexpr int kRulerHeight = 30;  ///< the least; rulerHeight() grows it with the font
  static constexpr double kFoldPx = 3.0;
  static constexpr int kMinHeaderWidth = 132;
  static constexpr double kMinTickSpacingPx = 110;
  static constexpr int kMinLabelGapPx = 16;  ///< between two ruler labels, whatever the font

  /// Height of the ruler for this font (kRulerHeight at least).
  static int rulerHeight(const QFont& font);
  /// Width of the lane-name column for these rows in this font.
  static int headerWidth(const LaneLayout& layout, const QFont& font);
  /// The plotting area of `target`.
  static QRect plotRect(const QRect& target, const LaneLayout& layout, const QFont& font);

  void paint(QPainter& p, const QRect& target, const RenderState& s);

  /// The two wait styles, shared with the legend. Engine wait (ready -> start):
  /// a hatched box at op height. Stream wait (submit -> ready): a dashed line with a
  /// tick at submit, drawn in the strip under the ops.
  static void paintEngineWait(QPainter& p, const QRectF& r, const QColor& fill, const QColor& hatch);
  static void paintStreamWait(QPainter& p, double x0, double x1, double y, const QColor& color);
  /// Colour of a folded run of ops on a lane holding these op kinds.
  static QColor foldColor(std::uint32_t kindMask);

  /// Cached marks of a row for this axis and index state.
  const std::vector<OpMark>& marks(const LaneIndex& index, std::uint16_t lane, const TimeAxis& axis) const;
  /// The op or fold under plot point (x, content y).
  std::optional<TimelineHit> hitTest(const RenderState& s, double plotX, int contentY) const;
  void invalidate() { cache_.clear(); }
  /// Bytes held by the cached geometry.
  std::size_t cacheBytes() const;
  /// Number of marks drawn by the last paint (tests, bench).
  std::size_t lastMarksDrawn() const { return lastMarksDrawn_; }

  /// Where the ruler's tick labels go (x in target coordinates, clamped so the
  /// first and last labels are never cut off by the plot's edges).
  struct RulerLabel {
    QRect rect;
    QString text;
    double tickX;
  };
  static std::vector<RulerLabel> rulerLabels(const TimeAxis& axis, const QRect& plot, const QFont& font);

 private:
  struct CacheEntry {
    std::int64_t from = 0, span = 0;
    double width = 0;
    std::uint64_t viewBegin = 0, viewEnd = 0;
    bool valid = false;
    std::vector<OpMark> marks;
  };
  void paintRows(QPainter& p, const QRect& plot, const RenderState& s);
  void paintRuler(QPainter& p, const QRect& target, const QRect& plot, const RenderState& s);
  void paintHeader(QPainter& p, const QRect& target, const QRect& plot, const RenderState& s);

  mutable std::vector<CacheEntry> cache_;  // by lane id
  std::size_t lastMarksDrawn_ = 0;
};

}  // namespace pipescope::ui
