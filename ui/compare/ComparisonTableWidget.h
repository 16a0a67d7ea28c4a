#pragma once
// The A | B | difference table of an A/B comparison (compareRuns()): the better
// value of each row in bold, differences coloured green where B is better and red
// where it is worse.
#include <QTableWidget>

#include "analysis/Comparison.h"

namespace pipescope::ui {

class ComparisonTableWidget : public QTableWidget {
  Q_OBJECT
 public:
  explicit ComparisonTableWidget(QWidget* parent = nullptr);
  void setTable(const ComparisonTable& table);
  void clearTable();
  const ComparisonTable& table() const { return table_; }

  /// Colour of a difference: green when B is better, red when A is, none otherwise.
  static QColor winnerColor(Winner w);

 private:
  ComparisonTable table_;
};

}  // namespace pipescope::ui
