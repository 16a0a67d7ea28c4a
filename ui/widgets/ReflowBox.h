#pragma once
// Widgets side by side while they fit at their minimum widths, the rest on the next
// row, the way words fill lines: a panel in a dock on a small screen stacks its parts
// and scrolls vertically instead of cutting its right-hand part or forcing the
// window wider than the screen. Its minimum width is its widest widget's; its height for a width (heightForWidth) is what its widgets
// need there, so a VerticalScrollArea around it scrolls only when it must.
#include <QWidget>
#include <vector>

namespace pipescope::ui {

class ReflowBox : public QWidget {
  Q_OBJECT
 public:
  explicit ReflowBox(QWidget* parent = nullptr);

  /// Adds `w` (reparented) after the others; `stretch` shares the spare space.
  void addWidget(QWidget* w, int stretch = 1);
  void setSpacing(int pixels);
  /// Whether the widgets all fit on one row at `width` (the current width by default).
  bool sideBySide(int width = -1) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Item {
    QWidget* widget;
    int stretch;
  };
  std::vector<Item> shownItems() const;
  std::vector<std::vector<Item>> rows(int width) const;
  std::vector<int> rowWidths(const std::vector<Item>& row, int width) const;
  int rowHeight(const std::vector<Item>& row, int width) const;
  int neededHeight(const QWidget* w, int width) const;
  void place();

  std::vector<Item> items_;
  int spacing_ = 6;
};

}  // namespace pipescope::ui
