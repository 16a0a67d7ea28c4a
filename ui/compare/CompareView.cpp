#include "compare/CompareView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

#include "compare/ComparisonTableWidget.h"
#include "timeline/TimelineRenderer.h"
#include "timeline/TimelineView.h"

namespace pipescope::ui {

namespace {

QLabel* caption(const char* name) {
  auto* l = new QLabel;
  l->setObjectName(name);
  QFont f = l->font();
  f.setBold(true);
  l->setFont(f);
  return l;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  setObjectName("compareView");
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Horizontal);
  outer->addWidget(splitter);

  auto* left = new QWidget;
  auto* lanes = new QVBoxLayout(left);
  lanes->setContentsMargins(0, 0, 0, 0);
  lanes->setSpacing(2);
  auto* bar = new QHBoxLayout;
  hint_ = new QLabel;
  hint_->setWordWrap(true);
  grouping_ = new QComboBox;
  grouping_->addItem(tr("Lanes by engine"), int(LaneGrouping::ByEngine));
  grouping_->addItem(tr("Lanes by stream"), int(LaneGrouping::ByStream));
  grouping_->addItem(tr("Streams and engines"), int(LaneGrouping::Both));
  export_ = new QPushButton(tr("Export comparison image…"));
  export_->setObjectName("exportComparison");
  clear_ = new QPushButton(tr("Clear pin"));
  clear_->setObjectName("clearPin");
  lanes->addWidget(hint_);
  bar->addStretch(1);
  bar->addWidget(grouping_);
  bar->addWidget(export_);
  bar->addWidget(clear_);
  lanes->addLayout(bar);

  captionA_ = caption("captionA");
  captionB_ = caption("captionB");
  a_ = new TimelineView;
  b_ = new TimelineView;
  for (TimelineView* v : {a_, b_}) {
    v->setGrouping(LaneGrouping::ByEngine);
    v->setMinimumHeight(120);
  }
  // Each view sits in a holder whose left margin aligns the two plots (alignPlots).
  auto holder = [](TimelineView* v) {
    auto* w = new QWidget;
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(v);
    return w;
  };
  lanes->addWidget(captionA_);
  lanes->addWidget(holder(a_), 1);
  lanes->addWidget(captionB_);
  lanes->addWidget(holder(b_), 1);
  splitter->addWidget(left);

  table_ = new ComparisonTableWidget;
  splitter->addWidget(table_);
  table_->setMinimumWidth(300);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({3000, 2000});  // proportions: the table's four columns need room

  connect(a_, &TimelineView::visibleRangeChanged, this, [this](std::int64_t f, std::int64_t t) { syncFrom(a_, f, t); });
  connect(b_, &TimelineView::visibleRangeChanged, this, [this](std::int64_t f, std::int64_t t) { syncFrom(b_, f, t); });
  connect(grouping_, &QComboBox::currentIndexChanged, this, [this] {
    const auto g = LaneGrouping(grouping_->currentData().toInt());
    a_->setGrouping(g);
    b_->setGrouping(g);
    alignPlots();
  });
  connect(export_, &QPushButton::clicked, this, &CompareView::exportRequested);
  connect(clear_, &QPushButton::clicked, this, &CompareView::clearRequested);
  clear();
}

bool CompareView::hasA() const { return a_->trace() != nullptr; }
bool CompareView::hasB() const { return b_->trace() != nullptr; }

void CompareView::setRunA(std::shared_ptr<const Trace> trace, const QString& name) {
  nameA_ = name;
  a_->setTrace(std::move(trace));
  userMoved_ = false;
  updateCaptions();
  alignPlots();
  fitBoth();
}

void CompareView::setRunB(std::shared_ptr<const Trace> trace, const QString& name) {
  nameB_ = trace ? name : QString();
  b_->setTrace(std::move(trace));
  if (!b_->trace()) table_->clearTable();
  userMoved_ = false;
  updateCaptions();
  alignPlots();
  fitBoth();
}

void CompareView::refreshB() {
  const auto lanesBefore = b_->layout().rows.size();
  b_->refresh();
  if (b_->layout().rows.size() != lanesBefore) alignPlots();
  if (!userMoved_) fitBoth();
}

void CompareView::setTable(const ComparisonTable& table) { table_->setTable(table); }

void CompareView::clear() {
  nameA_.clear();
  nameB_.clear();
  a_->setTrace(nullptr);
  b_->setTrace(nullptr);
  table_->clearTable();
  updateCaptions();
}

void CompareView::updateCaptions() {
  captionA_->setText(hasA() ? tr("A (pinned): %1").arg(nameA_) : tr("A: no run pinned"));
  captionB_->setText(hasB() ? tr("B: %1").arg(nameB_) : tr("B: the next run"));
  hint_->setText(!hasA()   ? tr("Run something, then Run > Pin as A: the next run is drawn under it on the same time axis.")
                 : !hasB() ? tr("A is pinned. Change the configuration and start a run: it becomes B.")
                           : tr("Both runs start at time 0; zoom and pan either timeline, the other follows."));
  export_->setEnabled(hasA() && hasB());
  clear_->setEnabled(hasA());
}

std::int64_t CompareView::latestEnd() const {
  std::int64_t end = 0;
  for (TimelineView* v : {a_, b_})
    if (!v->laneIndex().empty()) end = std::max(end, v->laneIndex().lastNs());
  return end;
}

void CompareView::fitBoth() {
  const std::int64_t end = latestEnd();
  if (end <= 0) return;
  syncing_ = true;
  const std::int64_t pad = std::max<std::int64_t>(1, end / 100);
  // Aligned at the run start: both rulers begin at 0, not at each run's first op.
  a_->setVisibleRange(-pad, end + pad);
  b_->setVisibleRange(-pad, end + pad);
  syncing_ = false;
  userMoved_ = false;
}

void CompareView::syncFrom(TimelineView* source, std::int64_t fromNs, std::int64_t toNs) {
  if (syncing_) return;
  userMoved_ = true;
  syncing_ = true;
  (source == a_ ? b_ : a_)->setVisibleRange(fromNs, toNs);
  syncing_ = false;
}

int CompareView::commonHeaderWidth() const {
  return std::max(TimelineRenderer::headerWidth(a_->layout(), a_->font()),
                  TimelineRenderer::headerWidth(b_->layout(), b_->font()));
}

void CompareView::alignPlots() {
  // The narrower header gets a left inset, so both plots start (and end) at the same
  // x and one time maps to one x in both.
  const int wa = TimelineRenderer::headerWidth(a_->layout(), a_->font());
  const int wb = TimelineRenderer::headerWidth(b_->layout(), b_->font());
  const int common = std::max(wa, wb);
  a_->parentWidget()->layout()->setContentsMargins(common - wa, 0, 0, 0);
  b_->parentWidget()->layout()->setContentsMargins(common - wb, 0, 0, 0);
  if (!userMoved_) fitBoth();
}

}  // namespace pipescope::ui
