#pragma once
// The live Gantt timeline: one row per host thread, stream and hardware engine,
// custom painted (docs/user-guide.md, "Reading the timeline", says how to read it
// and lists every interaction).
//
// For the app and the analysis helpers: op indices
// passed to the annotator and colorizer are the store's global indices
// (TraceView::at), which stay valid when a bounded live window drops old ops.
#include <QColor>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "timeline/BatchPace.h"
#include "timeline/FollowWindow.h"
#include "timeline/LaneIndex.h"
#include "timeline/LaneLayout.h"
#include "timeline/TimeAxis.h"
#include "timeline/TimelineRenderer.h"
#include "trace/Trace.h"

namespace pipescope::ui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  void setTrace(std::shared_ptr<const Trace> trace);  ///< nullptr clears
  std::shared_ptr<const Trace> trace() const { return trace_; }
  /// Picks up newly published ops (and lanes); the UI's display-rate timer calls it.
  void refresh();

  /// Follow live: the view keeps the newest few batches on screen (FollowWindow).
  void setFollowLive(bool on);
  bool followLive() const { return followLive_; }
  /// The run ended: fit the whole run and stop following, unless the user panned or
  /// zoomed during it (then the view stays where they put it; F fits).
  void finishLive();
  /// The user panned or zoomed since the trace was set.
  bool userAdjustedView() const { return userAdjusted_; }
  const BatchPace& batchPace() const { return pace_; }
  const FollowWindow& followWindow() const { return follow_; }
  void setGrouping(LaneGrouping g);
  LaneGrouping grouping() const { return grouping_; }
  /// Opened traces: GPU first; live runs: host first (LaneLayout.h says why).
  void setLaneOrder(LaneOrder order);
  LaneOrder laneOrder() const { return laneOrder_; }
  /// Shows or hides the host lanes that only carry call stacks (folded by default;
  /// a click on the group row's name toggles).
  void setCallStacksExpanded(bool on);
  bool callStacksExpanded() const { return callStacksExpanded_; }
  /// Several GPUs or ranks: folds or unfolds one device's group of lanes (a click on
  /// its title band does the same).
  void setDeviceCollapsed(int device, bool collapsed);
  bool deviceCollapsed(int device) const;
  /// Unfolds one device's (rank's) group and scrolls it to the top of the plot, as far
  /// as the lanes below it allow. False when the trace has no such group.
  bool revealDevice(int device);
  int scrollTop() const { return scrollY_; }  ///< content y at the plot's top edge

  void fit();
  void zoomIn();  ///< around the mouse when it is over the plot, else the centre
  void zoomOut();
  void panBy(double fractionOfView);  ///< positive: later times come into view
  void setVisibleRange(std::int64_t fromNs, std::int64_t toNs);
  std::pair<std::int64_t, std::int64_t> visibleRange() const { return {axis_.from(), axis_.to()}; }

  void setMarkers(std::vector<TimelineMarker> markers);
  const std::vector<TimelineMarker>& markers() const { return markers_; }
  /// Extra tooltip lines for an op (wait causes come from the analysis helper).
  void setOpAnnotator(std::function<QString(const Op& op, std::size_t opIndex)> f);
  /// Per-op colour of its wait bars (analysis helper: colour by wait cause).
  void setWaitColorizer(std::function<std::optional<QColor>(const Op&, std::size_t opIndex)> f);
  /// Painted on every row under the ops (nullptr: none). Not owned; call update() when it changes.
  void setOverlay(const TimelineOverlay* overlay);
  const TimelineOverlay* overlay() const { return overlay_; }

  /// Paints lanes, ruler, ops, markers and the selection into `target` (export;
  /// no hover state). The visible time range is the view's.
  void renderTo(QPainter& p, const QRect& target);

  // --- for the tests, the legend and the app's status texts ---
  const TimeAxis& axis() const { return axis_; }
  const LaneLayout& layout() const { return layout_; }
  /// The plotting area (right of the lane names, below the ruler) in widget pixels.
  QRect plotRect() const;
  /// The op (or folded group of ops) under a widget point.
  std::optional<TimelineHit> hitTest(const QPoint& pos) const;
  /// The tooltip shown at a widget point (empty when nothing is there).
  QString toolTipTextAt(const QPoint& pos) const;
  /// The current range selection, if any (Shift+drag or drag on the ruler; Esc clears).
  std::optional<std::pair<std::int64_t, std::int64_t>> selection() const { return selection_; }
  void setSelection(std::int64_t fromNs, std::int64_t toNs);
  void clearSelection();
  /// Lines describing the selection (duration, ops, engine busy, bytes): computeMetrics.
  QStringList selectionSummary() const { return selectionLines_; }
  const LaneIndex& laneIndex() const { return index_; }
  /// Bit k set: the trace shown holds ops of OpKind k (the legend's optional entries).
  std::uint32_t kindMask() const { return kindMask_; }
  const TimelineRenderer& renderer() const { return renderer_; }

 signals:
  void rangeSelected(std::int64_t fromNs, std::int64_t toNs);
  void visibleRangeChanged(std::int64_t fromNs, std::int64_t toNs);
  void followLiveChanged(bool on);
  /// The kinds of op the trace holds changed (a new trace, or a live run's first op of a kind).
  void kindsChanged(std::uint32_t kindMask);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

 private:
  RenderState renderState(bool withHover) const;
  void setAxis(const TimeAxis& axis);
  void relayout();
  void followNewest();
  void zoomAt(double plotX, double factor);
  void userMovedView();  ///< a pan: stops following and auto-fitting
  FollowInput followInput() const;
  bool updateCallStackLanes();                          ///< true when the set of foldable lanes changed
  void updateKindMask();                                ///< emits kindsChanged when it changed
  const LaneRow* headerRowAt(const QPoint& pos) const;  ///< the row whose name is at pos
  void updateSelectionSummary();
  double zoomAnchorX() const;

  std::shared_ptr<const Trace> trace_;
  std::vector<Lane> lanes_;
  LaneIndex index_;
  std::uint32_t kindMask_ = 0;
  BatchPace pace_;
  FollowWindow follow_;
  bool userAdjusted_ = false;
  LaneLayout layout_;
  TimeAxis axis_;
  TimelineRenderer renderer_;
  LaneGrouping grouping_ = LaneGrouping::Both;
  LaneOrder laneOrder_ = LaneOrder::HostFirst;
  bool callStacksExpanded_ = false;
  std::vector<bool> callStackOnly_;
  std::vector<bool> collapsedDevices_;
  bool followLive_ = false;
  bool autoFit_ = true;  // fit as ops arrive until the user moves the view
  int scrollY_ = 0;

  std::vector<TimelineMarker> markers_;
  std::function<QString(const Op&, std::size_t)> annotator_;
  std::function<std::optional<QColor>(const Op&, std::size_t)> colorizer_;
  const TimelineOverlay* overlay_ = nullptr;

  enum class Drag { None, Pan, Select };
  Drag drag_ = Drag::None;
  QPoint dragOrigin_;
  TimeAxis dragAxis_;
  std::int64_t dragTime_ = 0;
  std::optional<QPoint> hover_;
  std::optional<std::pair<std::int64_t, std::int64_t>> selection_;
  QStringList selectionLines_;
};

}  // namespace pipescope::ui
