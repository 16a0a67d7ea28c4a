// The Advice dock: computed off the UI thread when a run ends; on the naive preset
// pinned memory ranks first, and Apply loads its configuration into the controls.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSignalSpy>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "analysis/AdvicePanel.h"
#include "config/Presets.h"
#include "controls/ControlPanel.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

TEST(AdvicePanel, NaivePresetAdvisesPinnedMemoryFirstAndApplyLoadsIt) {
  MainWindow w(MainWindow::Options{false});
  w.resize(1600, 1000);
  w.show();
  w.controlPanel().setBackendOptions(simulator());
  QSignalSpy ready(&w.advice(), &AdvicePanel::adviceReady);
  PipelineConfig naive = findPreset("naive")->config;
  naive.batchCount = 8;
  w.startRun(naive);
  ASSERT_TRUE(waitFor([&] { return ready.count() >= 1; })) << w.advice().statusText().toStdString();
  const AdviceResult& r = w.advice().result();
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_FALSE(r.items.empty());
  EXPECT_EQ(r.items[0].kind, AdviceKind::PinnedMemory);
  EXPECT_EQ(r.items[0].title, "pinned memory");
  EXPECT_GT(r.items[0].speedup, 1.5);
  for (std::size_t i = 1; i < r.items.size(); ++i) EXPECT_LE(r.items[i].speedup, r.items[i - 1].speedup);

  QPushButton* apply = w.advice().applyButton(0);
  ASSERT_TRUE(apply);
  apply->click();
  const auto loaded = w.controlPanel().config();
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, r.items[0].config);
  EXPECT_EQ(loaded->memory, HostMemory::Pinned);
}

TEST(AdvicePanel, ANewRunCancelsTheOldAdvice) {
  MainWindow w(MainWindow::Options{false});
  w.show();
  w.controlPanel().setBackendOptions(simulator(1.0));  // real time: the run is live for a while
  PipelineConfig c = findPreset("multi-stream")->config;
  c.batchCount = 0;  // until stopped
  w.startRun(c);
  EXPECT_FALSE(w.advice().computing());
  EXPECT_TRUE(w.advice().statusText().contains("advice follows")) << w.advice().statusText().toStdString();
  ASSERT_TRUE(waitFor([&] { return w.currentTrace()->completedBatches() >= 2; }));
  w.stopRun();
  QSignalSpy ready(&w.advice(), &AdvicePanel::adviceReady);
  ASSERT_TRUE(waitFor([&] { return ready.count() >= 1; })) << w.advice().statusText().toStdString();
  EXPECT_FALSE(w.advice().computing());
  EXPECT_TRUE(w.advice().result().error.empty()) << w.advice().result().error;
}
