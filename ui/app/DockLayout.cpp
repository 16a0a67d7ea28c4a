#include "app/DockLayout.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>
#include <QTabBar>
#include <algorithm>

namespace pipescope::ui {

namespace {

QDockWidget* dock(QMainWindow& w, const char* name) { return w.findChild<QDockWidget*>(name); }

/// Makes `names` one tab group in `area`, the first one raised. Each dock joins the
/// group directly (tabifyDockWidget moves it): added one by one to the area they
/// would stand side by side for a moment, and the window would grow to the sum of
/// their minimum widths.
void group(QMainWindow& w, Qt::DockWidgetArea area, std::initializer_list<const char*> names) {
  QDockWidget* first = nullptr;
  for (const char* name : names) {
    QDockWidget* d = dock(w, name);
    if (!d) continue;
    if (!first) {
      first = d;
      if (w.dockWidgetArea(d) != area) w.addDockWidget(area, d);
      continue;
    }
    w.tabifyDockWidget(first, d);
  }
  if (first) first->raise();
}

int hintWidth(QDockWidget* d) { return d && d->widget() ? d->widget()->sizeHint().width() : 0; }

}  // namespace

void hideEmptyTabBars(QMainWindow& w) {
  for (QTabBar* t : w.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
    if (t->count() == 0) t->hide();
}

void arrangeDocks(QMainWindow& w, DockArrangement arrangement) {
  // The bottom row spans the window: the sweep's grid, progress and figures and the
  // three charts need the width more than the side panels need the height.
  w.setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
  w.setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
  if (arrangement == DockArrangement::Wide) {
    group(w, Qt::LeftDockWidgetArea, {"dock.controls", "dock.lessons"});
    group(w, Qt::RightDockWidgetArea, {"dock.metrics", "dock.advice"});
  } else {
    group(w, Qt::LeftDockWidgetArea, {"dock.controls", "dock.lessons", "dock.metrics", "dock.advice"});
  }
  group(w, Qt::BottomDockWidgetArea, {"dock.charts", "dock.ranks", "dock.compare", "dock.sweep"});
  hideEmptyTabBars(w);
}

void sizeDocksFromContent(QMainWindow& w, DockArrangement arrangement) {
  const QSize win = w.size();
  QDockWidget* controls = dock(w, "dock.controls");
  QDockWidget* lessons = dock(w, "dock.lessons");
  QDockWidget* metrics = dock(w, "dock.metrics");
  QDockWidget* advice = dock(w, "dock.advice");
  QDockWidget* charts = dock(w, "dock.charts");
  QDockWidget* sweep = dock(w, "dock.sweep");
  if (!controls || !metrics || !charts) return;
  if (arrangement == DockArrangement::Wide) {
    const int left = std::clamp(std::max(hintWidth(controls), hintWidth(lessons)), int(win.width() * 0.19),
                                int(win.width() * 0.24));
    const int right = std::clamp(std::max(hintWidth(metrics), hintWidth(advice)), int(win.width() * 0.20),
                                 int(win.width() * 0.26));
    w.resizeDocks({controls, metrics}, {left, right}, Qt::Horizontal);
  } else {
    const int left = std::clamp(std::max({hintWidth(controls), hintWidth(lessons), hintWidth(metrics), hintWidth(advice)}),
                                int(win.width() * 0.24), int(win.width() * 0.30));
    w.resizeDocks({controls}, {left}, Qt::Horizontal);
  }
  // As high as the sweep needs at the window's width (its grid and figures side by
  // side), within a share of the window that leaves the timeline the most.
  int bottom = 300;
  if (auto* scroll = sweep ? qobject_cast<QScrollArea*>(sweep->widget()) : nullptr; scroll && scroll->widget()) {
    const QWidget* content = scroll->widget();
    bottom = content->hasHeightForWidth() ? content->heightForWidth(win.width()) : content->minimumSizeHint().height();
    // The dock's title bar (the raised charts dock shows how high) and the group's tab bar.
    int title = charts->isVisible() && charts->widget() ? charts->height() - charts->widget()->height() : 0;
    if (title <= 0) title = charts->fontMetrics().height() + 10;
    int tabs = charts->fontMetrics().height() + 12;
    for (const QTabBar* t : w.findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
      if (t->count() > 0) tabs = std::max(tabs, t->sizeHint().height());
    bottom += title + tabs;
  }
  const double lo = 0.24, hi = arrangement == DockArrangement::Wide ? 0.36 : 0.30;
  bottom = std::clamp(bottom, int(win.height() * lo), int(win.height() * hi));
  w.resizeDocks({charts}, {bottom}, Qt::Vertical);
  hideEmptyTabBars(w);
}

const char* toString(DockArrangement arrangement) {
  return arrangement == DockArrangement::Compact ? "compact" : "wide";
}

DockArrangement parseDockArrangement(const QByteArray& name) {
  return name == "compact" ? DockArrangement::Compact : DockArrangement::Wide;
}

}  // namespace pipescope::ui
