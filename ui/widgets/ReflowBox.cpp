#include "widgets/ReflowBox.h"

#include <QEvent>
#include <QLayout>
#include <algorithm>

namespace pipescope::ui {

ReflowBox::ReflowBox(QWidget* parent) : QWidget(parent) {
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

void ReflowBox::addWidget(QWidget* w, int stretch) {
  w->setParent(this);
  items_.push_back({w, std::max(0, stretch)});
  w->show();
  updateGeometry();
  place();
}

void ReflowBox::setSpacing(int pixels) {
  spacing_ = pixels;
  updateGeometry();
  place();
}

std::vector<ReflowBox::Item> ReflowBox::shownItems() const {
  std::vector<Item> out;
  for (const Item& i : items_)
    if (!i.widget->isHidden()) out.push_back(i);
  return out;
}

std::vector<std::vector<ReflowBox::Item>> ReflowBox::rows(int width) const {
  // Greedy, as words fill lines: a widget that does not fit beside the ones before it
  // at its minimum width starts the next row.
  std::vector<std::vector<Item>> out;
  int used = 0;
  for (const Item& i : shownItems()) {
    const int w = i.widget->minimumSizeHint().width();
    if (out.empty() || used + spacing_ + w > width) {
      out.push_back({i});
      used = w;
    } else {
      out.back().push_back(i);
      used += spacing_ + w;
    }
  }
  return out;
}

bool ReflowBox::sideBySide(int width) const { return rows(width < 0 ? this->width() : width).size() <= 1; }

int ReflowBox::neededHeight(const QWidget* w, int width) const {
  // What the widget cannot do without at this width (a layout's heightForWidth is only
  // its preference, and a minimum size hint is taken at the least width, where a
  // wrapping label is tall): a scroll area around the box scrolls only when it must.
  int h = 0;
  if (const QLayout* l = w->layout(); l && l->hasHeightForWidth()) h = l->totalMinimumHeightForWidth(width);
  else if (!w->layout() && w->hasHeightForWidth()) h = w->heightForWidth(width);
  else h = w->minimumSizeHint().height();
  return std::max(h, w->minimumHeight());
}

std::vector<int> ReflowBox::rowWidths(const std::vector<Item>& row, int width) const {
  // As a box layout shares a row: everyone's minimum, then up to everyone's
  // preferred width, then what is left by stretch.
  std::vector<int> w;
  int spare = width - spacing_ * std::max(0, int(row.size()) - 1);
  for (const Item& i : row) {
    w.push_back(i.widget->minimumSizeHint().width());
    spare -= w.back();
  }
  for (std::size_t k = 0; k < row.size() && spare > 0; ++k) {
    const int more = std::min(spare, std::max(0, row[k].widget->sizeHint().width() - w[k]));
    w[k] += more;
    spare -= more;
  }
  int stretches = 0;
  for (const Item& i : row) stretches += i.stretch;
  if (spare > 0 && !w.empty()) {
    const int total = spare;
    for (std::size_t k = 0; k < row.size(); ++k) {
      const int more = stretches > 0 ? total * row[k].stretch / stretches : total / int(row.size());
      w[k] += more;
      spare -= more;
    }
    w.back() += spare;  // rounding
  }
  return w;
}

int ReflowBox::rowHeight(const std::vector<Item>& row, int width) const {
  const std::vector<int> widths = rowWidths(row, width);
  int h = 0;
  for (std::size_t k = 0; k < row.size(); ++k) h = std::max(h, neededHeight(row[k].widget, widths[k]));
  return h;
}

int ReflowBox::heightForWidth(int width) const {
  const auto rs = rows(width);
  int h = 0;
  for (const auto& row : rs) h += rowHeight(row, width);
  return h + spacing_ * std::max(0, int(rs.size()) - 1);
}

QSize ReflowBox::sizeHint() const {
  int w = 0, h = 0;
  const auto items = shownItems();
  for (const Item& i : items) {
    const QSize hint = i.widget->sizeHint().expandedTo(i.widget->minimumSizeHint());
    w += hint.width();
    h = std::max(h, hint.height());
  }
  w += spacing_ * std::max(0, int(items.size()) - 1);
  return {w, h};
}

QSize ReflowBox::minimumSizeHint() const {
  int w = 0;
  for (const Item& i : shownItems()) w = std::max(w, i.widget->minimumSizeHint().width());
  // The height at the preferred width: layouts and scroll areas ask heightForWidth()
  // for the real one (the height at the least width, everything stacked, would make a
  // scroll area scroll even where everything fits side by side).
  return {w, heightForWidth(std::max(w, sizeHint().width()))};
}

void ReflowBox::place() {
  const auto rs = rows(width());
  if (rs.empty()) return;
  // Spare height goes to the rows by the stretch of their widgets.
  std::vector<int> heights;
  int need = spacing_ * (int(rs.size()) - 1), stretches = 0;
  std::vector<int> rowStretch;
  for (const auto& row : rs) {
    heights.push_back(rowHeight(row, width()));
    need += heights.back();
    int s = 0;
    for (const Item& i : row) s = std::max(s, i.stretch);
    rowStretch.push_back(s);
    stretches += s;
  }
  const int spare = std::max(0, height() - need);
  int y = 0;
  for (std::size_t r = 0; r < rs.size(); ++r) {
    const int more = stretches > 0 ? spare * rowStretch[r] / stretches : (r + 1 == rs.size() ? spare : 0);
    const int h = heights[r] + more;
    const std::vector<int> widths = rowWidths(rs[r], width());
    int x = 0;
    for (std::size_t k = 0; k < rs[r].size(); ++k) {
      rs[r][k].widget->setGeometry(x, y, widths[k], h);
      x += widths[k] + spacing_;
    }
    y += h + spacing_;
  }
}

void ReflowBox::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  place();
}

bool ReflowBox::event(QEvent* event) {
  if (event->type() == QEvent::LayoutRequest) {  // a child's size hints changed
    updateGeometry();
    place();
  }
  return QWidget::event(event);
}

}  // namespace pipescope::ui
