#include "timeline/TimelineView.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "metrics/Metrics.h"
#include "timeline/AnnotationLanes.h"
#include "timeline/DeviceGroupTitles.h"
#include "timeline/LaneDescription.h"
#include "timeline/TimelineText.h"

namespace pipescope::ui {

namespace {
constexpr double kZoomStep = 1.5;  // W/S and one wheel notch
constexpr double kPanStep = 0.2;   // A/D: a fifth of the view
constexpr int kDragThresholdPx = 3;
}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(320, 160);
  setToolTip(QString());  // tooltips come from event(QEvent::ToolTip)
}

TimelineView::~TimelineView() = default;

QRect TimelineView::plotRect() const { return TimelineRenderer::plotRect(rect(), layout_, font()); }

void TimelineView::setTrace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  index_.clear();
  pace_.clear();
  follow_.reset();
  userAdjusted_ = false;
  renderer_.invalidate();
  lanes_.clear();
  selection_.reset();
  selectionLines_.clear();
  hover_.reset();
  scrollY_ = 0;
  autoFit_ = true;
  refresh();
  updateKindMask();  // a new trace with no ops yet: refresh saw no change
  if (!trace_ || index_.empty()) setAxis(TimeAxis(0, 1'000'000, plotRect().width()));
  update();
}

void TimelineView::refresh() {
  if (!trace_) {
    lanes_.clear();
    relayout();
    updateKindMask();
    update();
    return;
  }
  const bool lanesChanged = trace_->laneCount() != lanes_.size();
  if (lanesChanged) lanes_ = trace_->lanes();
  const std::uint64_t before = index_.view().end(), beforeBegin = index_.view().begin();
  index_.update(trace_->ops().snapshot());
  const bool changed = index_.view().end() != before || index_.view().begin() != beforeBegin;
  // Which lanes fold depends on the ops they hold: laid out after the index update.
  if (lanesChanged || (changed && updateCallStackLanes())) relayout();
  if (changed || lanesChanged) updateKindMask();
  if (changed) {
    pace_.update(index_.view());
    if (followLive_)
      followNewest();
    else if (autoFit_)
      fit();
    if (selection_) updateSelectionSummary();
    update();
  }
}

void TimelineView::updateKindMask() {
  std::uint32_t mask = 0;
  if (trace_)
    for (std::size_t id = 0; id < index_.laneSlots(); ++id) mask |= index_.lane(std::uint16_t(id)).kindMask;
  if (mask == kindMask_) return;
  kindMask_ = mask;
  emit kindsChanged(mask);
}

bool TimelineView::updateCallStackLanes() {
  std::vector<bool> next = callStackOnlyLanes(lanes_, index_);
  if (next == callStackOnly_) return false;
  callStackOnly_ = std::move(next);
  return true;
}

void TimelineView::relayout() {
  updateCallStackLanes();
  LaneLayoutOptions options;
  options.order = laneOrder_;
  options.callStackOnly = callStackOnly_;
  options.callStacksExpanded = callStacksExpanded_;
  options.deviceTitles = deviceGroupTitles(trace_.get(), lanes_, index_);
  options.collapsedDevices = collapsedDevices_;
  // Rows and section bands grow with the font (presentation mode on a projector).
  const QFontMetrics fm(font());
  QFont bold = font();
  bold.setBold(true);
  options.minRowHeight = std::max(LaneLayout::kRowHeight, fm.height() + 12);
  // (Not tall enough for a second line in large print: the lane's name is the point.)
  options.maxRowHeight = std::max(LaneLayout::kMaxRowHeight, fm.height() + 24);
  options.sectionHeight = std::max(LaneLayout::kSectionHeight, QFontMetrics(bold).height() + 6);
  layout_ = layoutLanes(lanes_, grouping_, height() - TimelineRenderer::rulerHeight(font()), options);
  const int maxScroll = std::max(0, layout_.contentHeight - plotRect().height());
  scrollY_ = std::clamp(scrollY_, 0, maxScroll);
  setAxis(axis_.withWidth(plotRect().width()));
}

void TimelineView::setDeviceCollapsed(int device, bool collapsed) {
  if (device < 0 || deviceCollapsed(device) == collapsed) return;
  if (collapsedDevices_.size() <= std::size_t(device)) collapsedDevices_.resize(std::size_t(device) + 1, false);
  collapsedDevices_[std::size_t(device)] = collapsed;
  relayout();
  update();
}

bool TimelineView::revealDevice(int device) {
  setDeviceCollapsed(device, false);
  for (const LaneRow& r : layout_.rows) {
    if (r.device != device || r.section.isEmpty()) continue;
    const int maxScroll = std::max(0, layout_.contentHeight - plotRect().height());
    scrollY_ = std::clamp(r.top - layout_.sectionHeight, 0, maxScroll);
    update();
    return true;
  }
  return false;
}

bool TimelineView::deviceCollapsed(int device) const {
  return device >= 0 && std::size_t(device) < collapsedDevices_.size() && collapsedDevices_[std::size_t(device)];
}

void TimelineView::setFollowLive(bool on) {
  if (followLive_ == on) return;
  followLive_ = on;
  if (on) followNewest();
  emit followLiveChanged(on);
  update();
}

FollowInput TimelineView::followInput() const {
  FollowInput in;
  in.firstNs = index_.firstNs();
  in.lastNs = index_.lastNs();
  in.widthPx = std::max(1, plotRect().width());
  in.periodNs = pace_.periodNs();
  in.shortestStageNs = pace_.shortestStageNs();
  return in;
}

void TimelineView::followNewest() {
  if (index_.empty()) return;
  const auto [from, to] = follow_.window(followInput());
  setAxis(TimeAxis(from, to, plotRect().width()));
}

void TimelineView::finishLive() {
  // The device group titles carry each GPU's busy share: a pass over its compute
  // lanes, too dear for every live refresh, so it is taken when lanes appear and
  // again once the run is whole.
  relayout();
  update();
  if (userAdjusted_) return;
  if (followLive_) {
    followLive_ = false;
    emit followLiveChanged(false);
  }
  fit();
}

void TimelineView::setGrouping(LaneGrouping g) {
  if (grouping_ == g) return;
  grouping_ = g;
  relayout();
  update();
}

void TimelineView::setLaneOrder(LaneOrder order) {
  if (laneOrder_ == order) return;
  laneOrder_ = order;
  scrollY_ = 0;
  relayout();
  update();
}

void TimelineView::setCallStacksExpanded(bool on) {
  if (callStacksExpanded_ == on) return;
  callStacksExpanded_ = on;
  relayout();
  update();
}

void TimelineView::fit() {
  if (index_.empty()) return;
  const std::int64_t first = index_.firstNs(), last = index_.lastNs();
  const auto pad = std::max<std::int64_t>(1, (last - first) / 100);
  setAxis(TimeAxis(first - pad, last + pad, plotRect().width()));
}

double TimelineView::zoomAnchorX() const {
  if (followLive_) return axis_.width();  // zoom around the newest ops
  if (hover_ && plotRect().contains(*hover_)) return hover_->x() - plotRect().left();
  return axis_.width() / 2;
}

void TimelineView::zoomAt(double plotX, double factor) {
  autoFit_ = false;
  userAdjusted_ = true;
  if (followLive_) {
    // Keep following at the new span (with the follow window's lower limit).
    follow_.zoomBy(factor, followInput());
    followNewest();
    return;
  }
  setAxis(axis_.zoomedAround(plotX, factor));
}

void TimelineView::zoomIn() { zoomAt(zoomAnchorX(), kZoomStep); }
void TimelineView::zoomOut() { zoomAt(zoomAnchorX(), 1 / kZoomStep); }

void TimelineView::userMovedView() {
  autoFit_ = false;
  userAdjusted_ = true;
  if (followLive_) {
    followLive_ = false;
    emit followLiveChanged(false);
  }
}

void TimelineView::panBy(double fractionOfView) {
  userMovedView();
  setAxis(axis_.panned(fractionOfView * axis_.width()));
}

void TimelineView::setVisibleRange(std::int64_t fromNs, std::int64_t toNs) {
  autoFit_ = false;
  setAxis(TimeAxis(fromNs, toNs, plotRect().width()));
}

void TimelineView::setAxis(const TimeAxis& axis) {
  const TimeAxis next = axis.withWidth(plotRect().width());
  if (next == axis_) return;
  const bool rangeChanged = next.from() != axis_.from() || next.to() != axis_.to();
  axis_ = next;
  update();
  if (rangeChanged) emit visibleRangeChanged(axis_.from(), axis_.to());
}

void TimelineView::setMarkers(std::vector<TimelineMarker> markers) {
  markers_ = std::move(markers);
  update();
}

void TimelineView::setOpAnnotator(std::function<QString(const Op&, std::size_t)> f) { annotator_ = std::move(f); }

void TimelineView::setWaitColorizer(std::function<std::optional<QColor>(const Op&, std::size_t)> f) {
  colorizer_ = std::move(f);
  update();
}

void TimelineView::setOverlay(const TimelineOverlay* overlay) {
  overlay_ = overlay;
  update();
}

// ---------------------------------------------------------------- selection

void TimelineView::setSelection(std::int64_t fromNs, std::int64_t toNs) {
  if (toNs < fromNs) std::swap(fromNs, toNs);
  selection_ = {fromNs, toNs};
  updateSelectionSummary();
  update();
  emit rangeSelected(fromNs, toNs);
}

void TimelineView::clearSelection() {
  if (!selection_) return;
  selection_.reset();
  selectionLines_.clear();
  update();
}

void TimelineView::updateSelectionSummary() {
  selectionLines_.clear();
  if (!selection_ || !trace_ || selection_->second <= selection_->first) return;
  const Metrics m = computeMetrics(*trace_, selection_->first, selection_->second);
  selectionLines_ = selectionSummaryLines(m, selection_->first, selection_->second);
}

// ---------------------------------------------------------------- painting

RenderState TimelineView::renderState(bool withHover) const {
  RenderState s;
  s.trace = trace_.get();
  s.index = &index_;
  s.layout = &layout_;
  s.axis = axis_;
  s.scrollY = scrollY_;
  s.markers = &markers_;
  s.colorizer = &colorizer_;
  s.overlay = overlay_;
  s.selection = selection_;
  s.palette = palette();
  s.font = font();
  if (withHover && hover_ && drag_ == Drag::None) {
    s.hovered = hitTest(*hover_);
    if (plotRect().contains(*hover_)) s.cursorX = hover_->x() - plotRect().left();
  }
  return s;
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  renderer_.paint(p, rect(), renderState(true));
  if (!trace_ || index_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(plotRect(), Qt::AlignCenter,
               trace_ ? QStringLiteral("Waiting for the first operations…")
                      : QStringLiteral("No run yet: start one, or open a trace file."));
  }
  if (!selectionLines_.isEmpty()) {
    // The selection's figures, in a box at the top right of the plot.
    const QFontMetrics fm(font());
    int w = 0;
    for (const QString& l : selectionLines_) w = std::max(w, fm.horizontalAdvance(l));
    const QRect plot = plotRect();
    const QRect box(plot.right() - w - 24, plot.top() + 8, w + 16, fm.height() * int(selectionLines_.size()) + 10);
    QColor bg = palette().color(QPalette::ToolTipBase);
    p.fillRect(box, bg);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(box.adjusted(0, 0, -1, -1));
    p.setPen(palette().color(QPalette::ToolTipText));
    for (int i = 0; i < selectionLines_.size(); ++i)
      p.drawText(QPoint(box.left() + 8, box.top() + 5 + fm.ascent() + i * fm.height()), selectionLines_[i]);
  }
}

void TimelineView::renderTo(QPainter& p, const QRect& target) {
  RenderState s = renderState(false);
  const QRect plot = TimelineRenderer::plotRect(target, layout_, s.font);
  s.axis = TimeAxis(axis_.from(), axis_.to(), plot.width());
  s.scrollY = 0;
  TimelineRenderer exportRenderer;  // own cache: the export's width differs from the widget's
  exportRenderer.paint(p, target, s);
}

void TimelineView::resizeEvent(QResizeEvent*) { relayout(); }

// ---------------------------------------------------------------- hit testing

std::optional<TimelineHit> TimelineView::hitTest(const QPoint& pos) const {
  const QRect plot = plotRect();
  if (!plot.contains(pos) || !trace_) return std::nullopt;
  RenderState s;
  s.index = &index_;
  s.layout = &layout_;
  s.axis = axis_;
  return renderer_.hitTest(s, pos.x() - plot.left(), pos.y() - plot.top() + scrollY_);
}

const LaneRow* TimelineView::headerRowAt(const QPoint& pos) const {
  const QRect plot = plotRect();
  if (pos.x() >= plot.left() || pos.y() < plot.top()) return nullptr;
  return layout_.rowAt(pos.y() - plot.top() + scrollY_);
}

QString TimelineView::toolTipTextAt(const QPoint& pos) const {
  if (const LaneRow* row = headerRowAt(pos)) return laneTooltip(*row, index_, layout_.foldableLanes);
  const auto hit = hitTest(pos);
  if (!hit) return {};
  if (hit->count > 1) return linesToRichText(foldTooltipLines(hit->count, hit->fromNs, hit->toNs));
  const Op& op = index_.view().at(hit->op);
  const QString extra = annotator_ ? annotator_(op, std::size_t(hit->op)) : QString();
  return linesToRichText(opTooltipLines(*trace_, lanes_, op, extra));
}

bool TimelineView::event(QEvent* e) {
  if (e->type() == QEvent::FontChange) {
    renderer_.invalidate();
    relayout();
    update();
  }
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const QString text = toolTipTextAt(he->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

// ---------------------------------------------------------------- input

void TimelineView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_W: zoomIn(); break;
    case Qt::Key_S: zoomOut(); break;
    case Qt::Key_A: panBy(-kPanStep); break;
    case Qt::Key_D: panBy(kPanStep); break;
    case Qt::Key_F:
      fit();
      autoFit_ = false;
      break;  // not a user adjustment: F is where finishLive goes too
    case Qt::Key_L: setFollowLive(!followLive_); break;
    case Qt::Key_Escape:
      if (drag_ == Drag::Select) drag_ = Drag::None;
      clearSelection();
      break;
    default: QWidget::keyPressEvent(e); return;
  }
  e->accept();
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const QPoint delta = e->angleDelta();
  const double plotX = e->position().x() - plotRect().left();
  if (e->modifiers() & Qt::ControlModifier) {
    const double notches = delta.y() / 120.0;
    if (notches != 0) zoomAt(followLive_ ? axis_.width() : plotX, std::pow(kZoomStep, notches));
  } else if ((e->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
    // Shift+wheel (or a horizontal wheel/touchpad swipe) pans; wheel down = later.
    // Qt turns Shift+vertical into horizontal on some platforms: take either.
    const int d = delta.x() != 0 ? delta.x() : delta.y();
    panBy(-d / 120.0 * 0.1);
  } else {
    const int maxScroll = std::max(0, layout_.contentHeight - plotRect().height());
    const int next = std::clamp(scrollY_ - delta.y() / 4, 0, maxScroll);
    if (next == scrollY_) {
      e->ignore();  // let a surrounding scroll area have it
      return;
    }
    scrollY_ = next;
    update();
  }
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
  const QPoint pos = e->position().toPoint();
  if (const LaneRow* row = headerRowAt(pos); row && row->group) {
    if (row->device >= 0)
      setDeviceCollapsed(row->device, !deviceCollapsed(row->device));
    else
      setCallStacksExpanded(!callStacksExpanded_);
    e->accept();
    return;
  }
  if (pos.y() >= plotRect().top()) {
    // A device group's title band, anywhere across the view, folds the group.
    if (const LaneRow* band = layout_.sectionAt(pos.y() - plotRect().top() + scrollY_); band && band->device >= 0) {
      setDeviceCollapsed(band->device, !deviceCollapsed(band->device));
      e->accept();
      return;
    }
  }
  const QRect plot = plotRect();
  const bool onRuler = pos.y() < plot.top() && pos.x() >= plot.left();
  if (!onRuler && !plot.contains(pos)) return QWidget::mousePressEvent(e);
  dragOrigin_ = pos;
  dragAxis_ = axis_;
  dragTime_ = axis_.toTime(pos.x() - plot.left());
  drag_ = (onRuler || (e->modifiers() & Qt::ShiftModifier)) ? Drag::Select : Drag::Pan;
  if (drag_ == Drag::Pan) setCursor(Qt::ClosedHandCursor);
  e->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  const QPoint pos = e->position().toPoint();
  hover_ = pos;
  const QRect plot = plotRect();
  if (drag_ == Drag::Pan) {
    const int dx = pos.x() - dragOrigin_.x(), dy = pos.y() - dragOrigin_.y();
    if (std::abs(dx) >= kDragThresholdPx || axis_ != dragAxis_) {
      userMovedView();
      setAxis(dragAxis_.panned(-dx));
    }
    const int maxScroll = std::max(0, layout_.contentHeight - plot.height());
    if (dy != 0 && maxScroll > 0) scrollY_ = std::clamp(scrollY_ - dy, 0, maxScroll), dragOrigin_.setY(pos.y());
  } else if (drag_ == Drag::Select) {
    if (std::abs(pos.x() - dragOrigin_.x()) >= kDragThresholdPx) {
      const std::int64_t t = axis_.toTime(std::clamp(pos.x() - plot.left(), 0, plot.width()));
      selection_ = {std::min(dragTime_, t), std::max(dragTime_, t)};
    }
  }
  update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return QWidget::mouseReleaseEvent(e);
  const Drag was = drag_;
  drag_ = Drag::None;
  unsetCursor();
  if (was == Drag::Select) {
    const QPoint pos = e->position().toPoint();
    if (std::abs(pos.x() - dragOrigin_.x()) >= kDragThresholdPx && selection_) {
      setSelection(selection_->first, selection_->second);
    } else {
      clearSelection();  // a click on the ruler clears
    }
  }
  update();
}

void TimelineView::leaveEvent(QEvent*) {
  hover_.reset();
  update();
}

}  // namespace pipescope::ui
