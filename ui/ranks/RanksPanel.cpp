#include "ranks/RanksPanel.h"

#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "MainWindow.h"
#include "analysis/AnalysisFormat.h"
#include "app/PresentationMode.h"
#include "timeline/TimelineView.h"
#include "widgets/VerticalScrollArea.h"

namespace pipescope::ui {

namespace {

constexpr int kDeviceRole = Qt::UserRole + 1;

/// A cell shown as text, sorted by its number.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
    setData(Qt::UserRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
  }
};

QString ns(double v) { return QString::fromStdString(formatNs(v)); }

struct Column {
  const char* title;
  const char* tip;
};

const Column kColumns[] = {
    {QT_TRANSLATE_NOOP("RanksPanel", "Rank"), QT_TRANSLATE_NOOP("RanksPanel", "The rank (process) of the job")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Compute"),
     QT_TRANSLATE_NOOP("RanksPanel", "Time with a computation kernel (not a collective) running on the rank's GPU")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Exposed\ncomm"),
     QT_TRANSLATE_NOOP("RanksPanel",
                       "Collective (NCCL) kernel time with no computation kernel beside it on the same rank")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Overlap"),
     QT_TRANSLATE_NOOP("RanksPanel", "Share of the communication with computation running beside it")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Memory"), QT_TRANSLATE_NOOP("RanksPanel", "Copies and memsets")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Idle:\nhost"),
     QT_TRANSLATE_NOOP("RanksPanel", "GPU idle until the host launched the next op")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Idle:\nother"),
     QT_TRANSLATE_NOOP("RanksPanel", "GPU idle with the next op launched, held by a dependency (event, stream)")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Waited\nfor others"),
     QT_TRANSLATE_NOOP("RanksPanel", "Time inside collectives until the last rank arrived")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Made\nothers wait"),
     QT_TRANSLATE_NOOP("RanksPanel",
                       "Time the other ranks waited in collectives this rank arrived at last, summed over them")},
    {QT_TRANSLATE_NOOP("RanksPanel", "Step"),
     QT_TRANSLATE_NOOP("RanksPanel", "Mean step period: one ProfilerStep's start to the next one's")},
};
constexpr int kColumnCount = int(std::size(kColumns));

QTableWidget* makeTable(int columns) {
  auto* t = new QTableWidget(0, columns);
  t->verticalHeader()->hide();
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setAlternatingRowColors(true);
  t->setWordWrap(false);
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  t->horizontalHeader()->setStretchLastSection(true);
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
  return t;
}

/// Height that shows the header and every row.
int wholeHeight(const QTableWidget& t) {
  int h = t.horizontalHeader()->sizeHint().height() + 2 * t.frameWidth();
  for (int r = 0; r < t.rowCount(); ++r) h += t.rowHeight(r);
  if (t.horizontalScrollBar()->isVisible()) h += t.horizontalScrollBar()->sizeHint().height();
  return h;
}

}  // namespace

RanksPanel::RanksPanel(MainWindow& window) : window_(window) {
  setObjectName("panel.ranks");
  headline_ = new QLabel;
  headline_->setObjectName("ranks.headline");
  headline_->setWordWrap(true);
  straggler_ = new QLabel;
  straggler_->setWordWrap(true);
  straggler_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = makeTable(kColumnCount);
  table_->setObjectName("ranks.table");
  for (int c = 0; c < kColumnCount; ++c) {
    auto* head = new QTableWidgetItem(tr(kColumns[c].title));
    head->setToolTip(tr(kColumns[c].tip));
    table_->setHorizontalHeaderItem(c, head);
  }
  table_->setSortingEnabled(true);
  table_->setToolTip(tr("Figures over the whole trace; click a header to sort, a rank to show its lanes"));
  connect(table_, &QTableWidget::itemSelectionChanged, this, &RanksPanel::onSelection);

  auto* left = new QVBoxLayout;
  left->setContentsMargins(0, 0, 0, 0);
  left->addWidget(headline_);
  left->addWidget(table_, 1);

  auto* whatIf = new QWidget;
  auto* right = new QVBoxLayout(whatIf);
  right->setContentsMargins(0, 0, 0, 0);
  right->addWidget(straggler_);
  auto* title = new QLabel(tr("<b>What if</b>"));
  right->addWidget(title);
  stragglerWhatIf_ = new QLabel;
  stragglerWhatIf_->setWordWrap(true);
  right->addWidget(stragglerWhatIf_);
  bucketTable_ = makeTable(4);
  bucketTable_->setObjectName("ranks.buckets");
  bucketTable_->setHorizontalHeaderLabels({tr("Buckets"), tr("Step"), tr("Exposed comm"), tr("All-reduce time")});
  bucketTable_->setSelectionMode(QAbstractItemView::NoSelection);
  bucketTable_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  right->addWidget(bucketTable_);
  auto* askRow = new QHBoxLayout;
  askRow->addWidget(new QLabel(tr("With K buckets, K =")));
  asked_ = new QSpinBox;
  asked_->setObjectName("ranks.askedBuckets");
  asked_->setRange(1, kMaxWhatIfBuckets);
  asked_->setValue(16);
  asked_->setToolTip(tr("Another bucket count to predict, beside 1, 2, 4 and 8"));
  askRow->addWidget(asked_);
  askRow->addStretch(1);
  right->addLayout(askRow);
  connect(asked_, &QSpinBox::valueChanged, this, &RanksPanel::fillBuckets);
  assumptions_ = new QLabel;
  assumptions_->setWordWrap(true);
  assumptions_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  right->addWidget(assumptions_);
  right->addStretch(1);

  leftColumn_ = new QWidget;
  leftColumn_->setLayout(left);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 4, 4, 4);
  row->addWidget(leftColumn_, 2);
  row->addWidget(new VerticalScrollArea(whatIf), 1);

  connect(&window, &MainWindow::traceChanged, this, &RanksPanel::onTraceChanged);
  connect(this, &RanksPanel::rankSelected, &window, [this](int device) { window_.timeline().revealDevice(device); });
  // Once the window has made its docks and restored their last arrangement: a dock
  // shown in the last session stays hidden until a job's ranks are open again.
  QTimer::singleShot(0, this, [this] { onTraceChanged(window_.currentTrace()); });
}

void RanksPanel::onTraceChanged(const std::shared_ptr<Trace>& trace) {
  const bool ranks = setTrace(trace);
  auto* dock = window_.findChild<QDockWidget*>("dock.ranks");
  if (!dock) return;
  // Only a job's ranks have anything to show here.
  dock->toggleViewAction()->setEnabled(ranks);
  if (window_.presentation().active()) return;  // it hides every dock until it is left
  dock->setVisible(ranks);
  if (!ranks) return;
  dock->raise();
  // The bottom row takes the height that shows the table whole (up to 45 % of the
  // window, as the sweep's does); the timeline keeps the rest.
  QTimer::singleShot(0, this, [this, dock] { fitDock(*dock); });
}

void RanksPanel::fitDock(QDockWidget& dock) {
  if (!dock.isVisible()) return;
  // The what-if column scrolls: the table sets the height.
  auto shortBy = [this] {
    const int width = leftColumn_->width();
    const int spacing = leftColumn_->layout()->spacing();
    return headline_->heightForWidth(width) + wantedTableHeight() + spacing - leftColumn_->height();
  };
  const int limit = window_.height() * 45 / 100;
  // resizeDocks sizes the dock's place in the row, which for a tab group includes the
  // tab bar: a second pass adds what the first left short.
  for (int pass = 0; pass < 2; ++pass) {
    const int missing = shortBy();
    if (missing == 0 || (missing > 0 && dock.height() >= limit)) break;
    window_.resizeDocks({&dock}, {std::min(dock.height() + missing, limit)}, Qt::Vertical);
    window_.layout()->activate();
  }
}

bool RanksPanel::setTrace(const std::shared_ptr<const Trace>& trace) {
  analysis_ = {};
  buckets_ = {};
  if (trace && trace->ranks().size() > 1) {
    analysis_ = analyzeRanks(*trace);
    buckets_ = predictBuckets(*trace, analysis_);
  }
  fillTable();
  fillBuckets();
  return hasRanks();
}

void RanksPanel::fillTable() {
  table_->setSortingEnabled(false);
  table_->setRowCount(0);
  if (!hasRanks()) {
    headline_->clear();
    straggler_->clear();
    return;
  }
  const auto& ranks = analysis_.ranks;
  std::int64_t steps = 0;
  for (const RankFigures& r : ranks) steps = std::max(steps, r.iterations);
  // One line above the table; the whole sentence heads the what-if column.
  QString who;
  if (analysis_.straggler >= 0) {
    for (const RankFigures& r : ranks)
      if (r.rank == analysis_.straggler)
        who = tr("<b>Straggler: rank %1</b> (in bold), the others waited %2 per step and rank for it")
                  .arg(r.rank)
                  .arg(ns(double(r.madeOthersWaitNs) /
                          double(std::max<std::int64_t>(1, r.iterations) * std::int64_t(ranks.size() - 1))));
  } else {
    who = analysis_.collectives > 0 ? tr("<b>No straggler</b>: the ranks arrive within %1 of each other")
                                          .arg(ns(double(analysis_.arrivalSpreadNs)))
                                    : tr("<b>No straggler</b> can be named: no collective is found on every rank");
  }
  headline_->setText(tr("%1 ranks, %2 steps, figures over the whole trace. %3").arg(ranks.size()).arg(steps).arg(who));
  headline_->setToolTip(QString::fromStdString(analysis_.stragglerSentence));
  straggler_->setText(tr("<b>Straggler:</b> %1. %2 collectives matched on every rank.")
                          .arg(QString::fromStdString(analysis_.stragglerSentence).toHtmlEscaped())
                          .arg(analysis_.collectives));
  table_->setRowCount(int(ranks.size()));
  for (int i = 0; i < int(ranks.size()); ++i) {
    const RankFigures& r = ranks[std::size_t(i)];
    std::vector<QTableWidgetItem*> cells = {
        new NumberItem(QString::number(r.rank), r.rank),
        new NumberItem(ns(double(r.computeNs)), double(r.computeNs)),
        new NumberItem(ns(double(r.exposedCommunicationNs)), double(r.exposedCommunicationNs)),
        new NumberItem(QString::fromStdString(formatPercent(r.overlap)), r.overlap),
        new NumberItem(ns(double(r.memoryNs)), double(r.memoryNs)),
        new NumberItem(ns(double(r.idleWaitingForHostNs)), double(r.idleWaitingForHostNs)),
        new NumberItem(ns(double(r.idleWaitingOtherNs)), double(r.idleWaitingOtherNs)),
        new NumberItem(ns(double(r.waitedForOthersNs)), double(r.waitedForOthersNs)),
        new NumberItem(ns(double(r.madeOthersWaitNs)), double(r.madeOthersWaitNs)),
        new NumberItem(r.iterations > 0 ? ns(r.iterationMeanNs) : QStringLiteral("-"), r.iterationMeanNs)};
    cells[0]->setData(kDeviceRole, r.device);
    cells[0]->setToolTip(QString::fromStdString(r.source));
    const bool straggler = r.rank == analysis_.straggler;
    for (int c = 0; c < kColumnCount; ++c) {
      if (straggler) {
        QFont f = table_->font();
        f.setBold(true);
        cells[std::size_t(c)]->setFont(f);
        cells[std::size_t(c)]->setToolTip(tr("The straggler: the others wait for this rank"));
      }
      table_->setItem(i, c, cells[std::size_t(c)]);
    }
  }
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
}

void RanksPanel::fillBuckets() {
  bucketTable_->setRowCount(0);
  stragglerWhatIf_->clear();
  assumptions_->clear();
  if (!hasRanks()) return;
  QStringList straggler;
  for (const RankWhatIf& w : analysis_.whatIfs) straggler << QString::fromStdString(w.sentence).toHtmlEscaped();
  stragglerWhatIf_->setText(straggler.isEmpty() ? tr("No straggler to speed up.") : straggler.join("<br>"));
  if (!buckets_.ok()) {
    assumptions_->setText(
        tr("<b>With K buckets:</b> no prediction: %1").arg(QString::fromStdString(buckets_.why).toHtmlEscaped()));
    bucketTable_->hide();
    return;
  }
  bucketTable_->show();
  auto addRow = [&](const QString& label, double step, double exposed, const QString& comm, bool bold) {
    const int row = bucketTable_->rowCount();
    bucketTable_->insertRow(row);
    const QString cells[] = {label, ns(step), ns(exposed), comm};
    for (int c = 0; c < 4; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setTextAlignment((c == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
      if (bold) {
        QFont f = bucketTable_->font();
        f.setBold(true);
        item->setFont(f);
      }
      bucketTable_->setItem(row, c, item);
    }
  };
  addRow(tr("%1 (measured)").arg(buckets_.measuredBuckets), buckets_.stepNs, buckets_.measuredExposedNs,
         ns(buckets_.measuredCommunicationNs), true);
  std::vector<int> ks;
  for (const BucketPrediction& p : buckets_.predictions) ks.push_back(p.buckets);
  if (std::find(ks.begin(), ks.end(), asked_->value()) == ks.end()) ks.push_back(asked_->value());
  for (int k : ks) {
    const BucketPrediction p = predictWithBuckets(buckets_, k);
    addRow(QString::number(k), p.stepNs, p.exposedNs, ns(p.communicationNs), false);
  }
  bucketTable_->setFixedHeight(wholeHeight(*bucketTable_));  // a handful of rows: no scrolling
  QString text = tr("<b>With K buckets</b> (rank %1's steps, the critical rank; %2 steps measured). Assumes:<ul>")
                     .arg(buckets_.rank)
                     .arg(buckets_.steps);
  for (const std::string& a : buckets_.assumptions)
    text += "<li>" + QString::fromStdString(a).toHtmlEscaped() + "</li>";
  assumptions_->setText(text + "</ul>");
}

void RanksPanel::onSelection() {
  const auto selected = table_->selectedItems();
  if (selected.isEmpty()) return;
  const QTableWidgetItem* rank = table_->item(selected.front()->row(), 0);
  if (rank) emit rankSelected(rank->data(kDeviceRole).toInt());
}

int RanksPanel::wantedTableHeight() const {
  // Every rank in view up to eight; more scroll.
  return std::min(wholeHeight(*table_),
                  table_->horizontalHeader()->sizeHint().height() + 8 * table_->verticalHeader()->defaultSectionSize());
}

QString RanksPanel::stragglerText() const { return headline_->text() + "\n" + straggler_->text(); }

QString RanksPanel::whatIfText() const { return stragglerWhatIf_->text() + "\n" + assumptions_->text(); }

}  // namespace pipescope::ui
