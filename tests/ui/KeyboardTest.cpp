// Everything of the Controls, Lessons and Sweep panels by keyboard: View › Go to panel
// (Alt+1 ...) puts the focus in a panel, Tab then reaches every enabled control of it;
// the sweep's heatmap cells open with Enter; Help › Keyboard shortcuts lists the keys.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QRadioButton>
#include <QSignalSpy>
#include <QToolButton>
#include <set>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "app/ShortcutsDialog.h"
#include "app/PresentationMode.h"
#include "controls/ControlPanel.h"
#include "lessons/LessonsPanel.h"
#include "sweep/SweepGridForm.h"
#include "sweep/SweepHeatmap.h"
#include "sweep/SweepView.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

bool interactive(const QWidget* w) {
  if (!w->isVisible() || !w->isEnabled()) return false;
  if (qobject_cast<const QToolButton*>(w)) return false;  // scroll arrows
  // The dock's float and close buttons: View › Panels does what they do.
  if (QByteArray(w->metaObject()->className()) == "QDockWidgetTitleButton") return false;
  if (qobject_cast<const QLineEdit*>(w) && qobject_cast<const QAbstractSpinBox*>(w->parentWidget())) return false;
  if (qobject_cast<const QLineEdit*>(w) && qobject_cast<const QComboBox*>(w->parentWidget())) return false;
  return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QComboBox*>(w) ||
         qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QLineEdit*>(w) ||
         qobject_cast<const QListView*>(w) || qobject_cast<const SweepHeatmap*>(w);
}

/// What Tab does not reach in `dock`, starting where Go to panel (`key`) puts the focus.
QStringList unreached(MainWindow& w, const char* dockName, Qt::Key key) {
  QTest::keyClick(&w, key, Qt::AltModifier);
  QTest::qWait(20);
  auto* dock = w.findChild<QDockWidget*>(dockName);
  QWidget* first = QApplication::focusWidget();
  if (!first || !dock->isAncestorOf(first) || !interactive(first))
    return {QStringLiteral("Go to panel did not focus a control of %1").arg(dockName)};
  // Tab goes through the panel's controls one after another before it leaves the
  // panel (a control added later must not sit at the end of the window's chain).
  std::set<const QWidget*> seen{first};
  for (int i = 0; i < 200; ++i) {
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QWidget* now = QApplication::focusWidget();
    if (now == first || !now || !dock->isAncestorOf(now)) break;
    seen.insert(now);
  }
  QStringList missing;
  std::set<const QObject*> radioGroups;  // Tab stops at one answer; arrow keys move between them
  for (const QWidget* c : dock->findChildren<QWidget*>()) {
    if (!interactive(c)) continue;
    if (auto* r = qobject_cast<const QRadioButton*>(c)) {
      if (seen.count(c)) radioGroups.insert(r->parentWidget());
      continue;
    }
    if (!seen.count(c))
      missing << QStringLiteral("%1 '%2'").arg(c->metaObject()->className(),
                                              qobject_cast<const QAbstractButton*>(c)
                                                  ? qobject_cast<const QAbstractButton*>(c)->text()
                                                  : c->objectName());
  }
  for (const QWidget* c : dock->findChildren<QRadioButton*>())
    if (interactive(c) && !radioGroups.count(c->parentWidget())) missing << QStringLiteral("the answers");
  missing.removeDuplicates();
  return missing;
}

}  // namespace

TEST(Keyboard, TabReachesEveryControlOfTheControlsLessonsAndSweepPanels) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1600, 1000);
  w.show();
  w.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
  w.lessons().selectLesson(4);  // its answers made after the panel: no answer picked yet
  for (const auto& [dock, key] : {std::pair{"dock.controls", Qt::Key_1}, std::pair{"dock.lessons", Qt::Key_2},
                                  std::pair{"dock.sweep", Qt::Key_7}}) {
    const QStringList missing = unreached(w, dock, key);
    EXPECT_TRUE(missing.isEmpty()) << dock << ": " << missing.join(", ").toStdString();
  }
  QTest::keyClick(&w, Qt::Key_0, Qt::AltModifier);
  EXPECT_EQ(QApplication::focusWidget(), static_cast<QWidget*>(&w.timeline()));
}

TEST(Keyboard, ArrowKeysAndEnterOpenAHeatmapCell) {
  SweepView view;
  view.form().batchSizesEdit()->setText("4M,16M");
  view.form().streamsEdit()->setText("1,4");
  view.form().setPrediction(false, "h200");
  BackendOptions backend = simulator();
  view.setBaseSource([] { return std::optional<PipelineConfig>(PipelineConfig{}); }, [backend] { return backend; });
  QSignalSpy ended(&view, &SweepView::sweepEnded);
  QString error;
  ASSERT_TRUE(view.startSweep(&error)) << error.toStdString();
  ASSERT_TRUE(waitFor([&] { return ended.count() == 1; }));
  view.resize(1500, 320);
  view.show();
  auto* map = view.findChildren<SweepHeatmap*>().front();
  map->setFocus();
  QSignalSpy opened(map, &SweepHeatmap::pointClicked);
  QTest::keyClick(map, Qt::Key_Right);  // 16M
  QTest::keyClick(map, Qt::Key_Up);     // 4 streams
  EXPECT_EQ(map->currentCell(), QPoint(1, 1));
  EXPECT_TRUE(map->statusTip().contains("4 streams")) << map->statusTip().toStdString();
  QTest::keyClick(map, Qt::Key_Return);
  ASSERT_EQ(opened.count(), 1);
  EXPECT_EQ(opened.front().at(0).value<std::size_t>(), map->grid().index(1, 1).value_or(999));
}

TEST(Keyboard, HelpListsThePanelAndPresentationKeys) {
  MainWindow w(MainWindow::Options{false});
  const auto rows = ShortcutsDialog::rows(w.menuBar(), w.presentation().actions());
  auto has = [&](const QString& what, const QString& keys) {
    for (const auto& r : rows)
      if (r.first.contains(what) && r.second.contains(keys)) return true;
    return false;
  };
  EXPECT_TRUE(has("Go to panel › Lessons", "Alt+2"));
  EXPECT_TRUE(has("Go to panel › Sweep", "Alt+7"));
  EXPECT_TRUE(has("Presentation", "F11"));
  EXPECT_TRUE(has("Presentation › Lesson: next step", "Space"));
  EXPECT_TRUE(has("Presentation › Lesson: step back", QKeySequence(Qt::Key_PageUp).toString(QKeySequence::NativeText)));
  EXPECT_TRUE(has("Presentation › Leave", "Esc"));
  EXPECT_TRUE(has("Heatmap", "Enter"));
}
