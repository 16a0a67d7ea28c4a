#include "compare/ComparisonTableWidget.h"

#include <QHeaderView>
#include <algorithm>

namespace pipescope::ui {

ComparisonTableWidget::ComparisonTableWidget(QWidget* parent) : QTableWidget(parent) {
  setObjectName("comparisonTable");
  setColumnCount(4);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionMode(QAbstractItemView::ContiguousSelection);  // copy a few rows into a report
  verticalHeader()->setVisible(false);
  // Columns as wide as their figures (a narrow dock scrolls sideways, never cuts the
  // difference column); the figure names alone may be cut, and their tooltips say them whole.
  horizontalHeader()->setStretchLastSection(false);
  setAlternatingRowColors(true);
  setWordWrap(false);
  setTextElideMode(Qt::ElideRight);
  clearTable();
}

QColor ComparisonTableWidget::winnerColor(Winner w) {
  switch (w) {
    case Winner::B: return QColor(0x00, 0x7A, 0x4D);  // B improved on A
    case Winner::A: return QColor(0xB0, 0x30, 0x30);  // B is worse
    default: return QColor();
  }
}

void ComparisonTableWidget::clearTable() {
  table_ = ComparisonTable{};
  setRowCount(0);
  setHorizontalHeaderLabels({tr("figure"), tr("A"), tr("B"), tr("difference (B − A)")});
  resizeColumnsToContents();
}

void ComparisonTableWidget::setTable(const ComparisonTable& t) {
  table_ = t;
  setHorizontalHeaderLabels({tr("figure"), tr("A: %1").arg(QString::fromStdString(t.aName)),
                             tr("B: %1").arg(QString::fromStdString(t.bName)), tr("difference (B − A)")});
  setRowCount(int(t.rows.size()));  // items are replaced: setItem deletes the old ones
  QFont bold = font();
  bold.setBold(true);
  for (int i = 0; i < int(t.rows.size()); ++i) {
    const ComparisonRow& r = t.rows[std::size_t(i)];
    const QString cells[] = {QString::fromStdString(r.label), QString::fromStdString(r.aText),
                             QString::fromStdString(r.bText), QString::fromStdString(r.differenceText)};
    for (int c = 0; c < 4; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setToolTip(cells[c]);
      if ((c == 1 && r.better == Winner::A) || (c == 2 && r.better == Winner::B)) item->setFont(bold);
      if (c == 3 && winnerColor(r.better).isValid()) item->setForeground(winnerColor(r.better));
      setItem(i, c, item);
    }
  }
  resizeColumnsToContents();
  setColumnWidth(0, std::min(columnWidth(0), 170));
}

}  // namespace pipescope::ui
