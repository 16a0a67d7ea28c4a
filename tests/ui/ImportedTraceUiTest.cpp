// An opened PyTorch profiler trace in the app, offscreen: its iterations give it the
// analysis of a native run (bound markers, limits, waits, advice on the derived
// configuration), the Open dialog takes an iteration marker and a batch size, a
// tensorboard_trace_handler folder opens, and Run › What if… sweeps the workload.
#include <gtest/gtest.h>

#include <QDir>
#include <cmath>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSpinBox>
#include <QTemporaryDir>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "analysis/AdvicePanel.h"
#include "analysis/AnalysisController.h"
#include "analysis/LimitsBar.h"
#include "analysis/LimitsSection.h"
#include "analysis/WhatIfAction.h"
#include "controls/ControlPanel.h"
#include "files/OpenTraceDialog.h"
#include "files/TraceFileActions.h"
#include "sweep/SweepView.h"
#include "timeline/TimelineView.h"

using namespace pipescope;
using namespace pipescope::ui;
using pipescope::ui::testing::waitFor;

namespace {

const QString kFixture = QString(PIPESCOPE_FIXTURES_DIR) + "/pytorch-profiler-resnet18-pinned-2streams.json.gz";

bool openAndWait(MainWindow& w, const QString& path, const ImportOptions& options = {}) {
  w.traceFiles().openFile(path, options);
  return w.traceFiles().waitForLoad();
}

}  // namespace

TEST(ImportedTraceUi, IterationsGiveMarkersLimitsAndAdvice) {
  MainWindow w(MainWindow::Options{false});
  w.show();
  ImportOptions o;
  o.batchSize = 16;
  ASSERT_TRUE(openAndWait(w, kFixture, o)) << w.lastError().toStdString();
  EXPECT_EQ(w.currentTrace()->completedBatches(), 6);
  ASSERT_EQ(w.timeline().markers().size(), 2u) << "ideal and actual finish";
  const LimitsSection& s = w.analysis().limitsSection();
  EXPECT_TRUE(s.bar().hasLimits());
  EXPECT_TRUE(s.positionText().startsWith("The run took")) << s.positionText().toStdString();
  EXPECT_TRUE(s.criticalText().contains("critical")) << s.criticalText().toStdString();
  // The advice works from the derived configuration on the trace GPU's profile.
  ASSERT_TRUE(waitFor([&] { return !w.advice().computing(); }, 60000));
  EXPECT_TRUE(w.advice().result().error.empty()) << w.advice().result().error;
  EXPECT_TRUE(w.whatIf().action()->isEnabled());
}

TEST(ImportedTraceUi, NoIterationsSaysWhyOnce) {
  MainWindow w(MainWindow::Options{false});
  w.show();
  ImportOptions o;
  o.iterations.marker = "no-such-range";
  ASSERT_TRUE(openAndWait(w, kFixture, o)) << w.lastError().toStdString();
  EXPECT_EQ(w.currentTrace()->completedBatches(), 0);
  const QString text = w.analysis().limitsSection().positionText();
  EXPECT_TRUE(text.contains("No iterations were found")) << text.toStdString();
  EXPECT_TRUE(text.contains("'no-such-range'")) << text.toStdString();
  EXPECT_TRUE(w.timeline().markers().empty());
  EXPECT_FALSE(w.whatIf().action()->isEnabled());
}

TEST(ImportedTraceUi, OpenDialogCarriesMarkerAndBatchSize) {
  MainWindow w(MainWindow::Options{false});
  files::OpenTraceDialog d(&w);
  EXPECT_TRUE(d.testOption(QFileDialog::DontUseNativeDialog));
  ASSERT_TRUE(d.findChild<QLineEdit*>("iterationMarker"));
  ASSERT_TRUE(d.findChild<QSpinBox*>("batchSize"));
  d.markerEdit().setText("  model ");
  d.batchSizeBox().setValue(32);
  const ImportOptions o = d.importOptions();
  EXPECT_EQ(o.iterations.marker, "model");
  EXPECT_EQ(o.batchSize, 32);
}

TEST(ImportedTraceUi, TensorBoardFolderOpensItsTrace) {
  QTemporaryDir dir;
  ASSERT_TRUE(QDir(dir.path()).mkpath("plugins/profile/run1"));
  const QString file = dir.path() + "/plugins/profile/run1/host_1.1700000000.pt.trace.json.gz";
  ASSERT_TRUE(QFile::copy(kFixture, file));
  MainWindow w(MainWindow::Options{false});
  ASSERT_TRUE(openAndWait(w, dir.path())) << w.lastError().toStdString();
  EXPECT_EQ(w.currentTrace()->completedBatches(), 6);
  QMenu* fileMenu = nullptr;
  for (QAction* a : w.menuBar()->actions())
    if (a->text() == "&File") fileMenu = a->menu();
  ASSERT_TRUE(fileMenu);
  QStringList texts;
  for (QAction* a : fileMenu->actions()) texts << a->text();
  EXPECT_TRUE(texts.contains("Open profiler &folder…")) << texts.join("|").toStdString();
}

TEST(ImportedTraceUi, WhatIfLoadsTheDerivedConfigurationAndSweepsIt) {
  MainWindow w(MainWindow::Options{false});
  w.show();
  ImportOptions o;
  o.batchSize = 16;
  ASSERT_TRUE(openAndWait(w, kFixture, o)) << w.lastError().toStdString();
  QString error;
  ASSERT_TRUE(w.whatIf().trigger(true, &error)) << error.toStdString();
  ASSERT_TRUE(w.whatIf().derived());
  const DerivedConfig& d = *w.whatIf().derived();
  EXPECT_LT(std::fabs(d.error), 0.10);
  const auto loaded = w.controlPanel().config();  // the form rounds the model cost to its step
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->streams, d.config.streams);
  EXPECT_EQ(loaded->memory, d.config.memory);
  EXPECT_EQ(loaded->mode, d.config.mode);
  EXPECT_EQ(loaded->batchBytes(), d.config.batchBytes());
  EXPECT_NEAR(loaded->modelFlopsPerByte, d.config.modelFlopsPerByte, 0.1);
  EXPECT_EQ(w.controlPanel().backendOptions().choice, BackendChoice::Simulator);
  EXPECT_EQ(w.controlPanel().backendOptions().simulatorProfile, "h200-calibrated");
  ASSERT_TRUE(waitFor([&] { return !w.sweepView().running(); }, 120000));
  EXPECT_GT(w.sweepView().result().points.size(), 4u);
  EXPECT_FALSE(w.sweepView().recommendationText().isEmpty());
}
