// The control panel shows every knob of PipelineConfig and gives back exactly what
// it was given; invalid values are shown with validate()'s message and block Start.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>

#include "config/Presets.h"
#include "controls/BackendSelector.h"
#include "controls/ByteSizeEdit.h"
#include "controls/ConfigForm.h"
#include "controls/ControlPanel.h"

using namespace pipescope;
using namespace pipescope::ui;

TEST(ConfigForm, EveryPresetRoundTrips) {
  ConfigForm form;
  for (const Preset& p : builtinPresets()) {
    form.setConfig(p.config);
    const auto back = form.config();
    ASSERT_TRUE(back.has_value()) << p.name;
    EXPECT_EQ(*back, p.config) << p.name;
  }
}

TEST(ConfigForm, NonDefaultValuesOfEveryFieldRoundTrip) {
  PipelineConfig c;
  c.mode = TransferMode::Async;
  c.memory = HostMemory::ManagedPrefetch;
  c.streams = 7;
  c.order = IssueOrder::BreadthFirst;
  c.sync = SyncMode::Spin;
  c.batchSamples = 300;
  c.sampleBytes = 12345;
  c.batchCount = 0;
  c.normalizeKernel = false;
  c.model = ModelPreset::Heavy;
  c.modelFlopsPerByte = 1234.5;
  c.cpuWorkers = 9;
  c.preprocessOpsPerByte = 1.25;
  c.postprocessOpsPerByte = 0.5;
  c.residency = DataResidency::KeepResident;
  c.outputRatio = 0.25;
  c.roiFraction = 0.125;
  c.transferChunks = 16;
  c.devices = {1, 3};
  c.allreduceBytes = 48ull << 20;
  c.buckets = 5;
  ConfigForm form;
  form.setConfig(c);
  const auto back = form.config();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, c);
  c.parallel = ParallelMode::Pipeline;
  c.devices = {0, 1, 2, 3};
  c.activationBytes = 3ull << 20;
  c.microBatches = 6;
  form.setConfig(c);
  EXPECT_EQ(form.config(), c);
}

// The several-GPU knobs appear only where they apply, and a new GPU count takes the
// machine's first GPUs.
TEST(ConfigForm, GpuKnobsShowOnlyWhereTheyApply) {
  ConfigForm form;
  form.setConfig(PipelineConfig{});
  auto bytesEdit = [&](const char* tipStart) {
    for (auto* e : form.findChildren<ByteSizeEdit*>())
      if (e->toolTip().startsWith(tipStart)) return e;
    return static_cast<ByteSizeEdit*>(nullptr);
  };
  ByteSizeEdit* allreduce = bytesEdit("Gradient bytes");
  ByteSizeEdit* activation = bytesEdit("Bytes each micro-batch");
  ASSERT_TRUE(allreduce && activation);
  QSpinBox* gpus = nullptr;
  QComboBox* parallel = nullptr;
  for (auto* b : form.findChildren<QSpinBox*>())
    if (b->toolTip().startsWith("GPUs the run uses")) gpus = b;
  for (auto* b : form.findChildren<QComboBox*>())
    if (b->findText("pipeline") >= 0) parallel = b;
  ASSERT_TRUE(gpus && parallel);
  EXPECT_FALSE(parallel->isVisibleTo(&form));
  EXPECT_FALSE(allreduce->isVisibleTo(&form));
  EXPECT_FALSE(activation->isVisibleTo(&form));

  gpus->setValue(4);
  EXPECT_TRUE(parallel->isVisibleTo(&form));
  EXPECT_TRUE(allreduce->isVisibleTo(&form));
  EXPECT_FALSE(activation->isVisibleTo(&form));
  EXPECT_EQ(form.config()->devices, (std::vector<int>{0, 1, 2, 3}));

  parallel->setCurrentText("pipeline");
  EXPECT_FALSE(allreduce->isVisibleTo(&form));
  EXPECT_TRUE(activation->isVisibleTo(&form));
  EXPECT_EQ(form.config()->parallel, ParallelMode::Pipeline);

  allreduce->setText("12 parsecs");
  QString error;
  EXPECT_FALSE(form.config(&error).has_value());
  EXPECT_TRUE(error.startsWith("all-reduce size = '12 parsecs'")) << error.toStdString();
}

TEST(ControlPanel, SelectingAPresetLoadsItAndEditingMakesItCustom) {
  ControlPanel panel;
  ASSERT_TRUE(panel.selectPreset("multi-stream"));
  EXPECT_EQ(panel.presetName(), "multi-stream");
  EXPECT_EQ(*panel.config(), findPreset("multi-stream")->config);
  auto* streams = panel.findChildren<QSpinBox*>().front();  // the first spin box is the stream count
  ASSERT_EQ(streams->value(), 4);
  streams->setValue(3);
  EXPECT_EQ(panel.presetName(), "");
  EXPECT_EQ(panel.config()->streams, 3);
  streams->setValue(4);
  EXPECT_EQ(panel.presetName(), "multi-stream");  // back on the preset: named again
}

TEST(ControlPanel, InvalidConfigurationShowsTheValidationMessageAndDisablesStart) {
  ControlPanel panel;
  ASSERT_TRUE(panel.selectPreset("multi-stream"));
  EXPECT_TRUE(panel.startButton()->isEnabled());
  // Blocking mode with 4 streams: each value is in range, the combination is not.
  PipelineConfig c = *panel.config();
  c.mode = TransferMode::Blocking;
  panel.setConfig(c);
  EXPECT_FALSE(panel.config().has_value());
  EXPECT_FALSE(panel.startButton()->isEnabled());
  const QStringList issues = panel.issues();
  ASSERT_EQ(issues.size(), 1);
  const std::string expected = validate(c).front().message();
  EXPECT_EQ(issues.front().toStdString(), expected);
  auto* label = panel.findChild<QLabel*>("validationMessages");
  ASSERT_NE(label, nullptr);
  EXPECT_TRUE(label->text().contains("1 in blocking mode")) << label->text().toStdString();
  EXPECT_FALSE(label->isHidden());

  QSignalSpy starts(&panel, &ControlPanel::startRequested);
  panel.startButton()->click();
  EXPECT_EQ(starts.count(), 0);

  c.streams = 1;
  panel.setConfig(c);
  EXPECT_TRUE(panel.startButton()->isEnabled());
  EXPECT_TRUE(label->isHidden());
}

TEST(ControlPanel, SpinBoxesCannotLeaveTheValidationRanges) {
  ControlPanel panel;
  for (QSpinBox* box : panel.findChildren<QSpinBox*>()) {
    box->setValue(box->minimum() - 1);
    box->setValue(box->maximum() + 1);
  }
  // Every single-field range is enforced by the widgets, so whatever remains is a
  // cross-field rule (none for the defaults pushed to their maxima).
  for (const QString& issue : panel.issues()) EXPECT_FALSE(issue.contains("allowed 1..")) << issue.toStdString();
}

TEST(ControlPanel, UnreadableSampleSizeIsReportedInline) {
  ControlPanel panel;
  auto* edit = panel.findChild<ByteSizeEdit*>();
  ASSERT_NE(edit, nullptr);
  edit->setText("lots");
  emit edit->textEdited("lots");
  EXPECT_FALSE(panel.startButton()->isEnabled());
  ASSERT_FALSE(panel.issues().isEmpty());
  EXPECT_TRUE(panel.issues().front().contains("sample size")) << panel.issues().front().toStdString();
}

TEST(ControlPanel, StartEmitsTheConfigurationAndBackend) {
  ControlPanel panel;
  panel.selectPreset("pinned");
  BackendOptions b;
  b.choice = BackendChoice::Simulator;
  b.simulatorProfile = "h200";
  b.simulatorSlowdown = 5;
  panel.setBackendOptions(b);
  QSignalSpy starts(&panel, &ControlPanel::startRequested);
  panel.startButton()->click();
  ASSERT_EQ(starts.count(), 1);
  EXPECT_EQ(starts.front().at(0).value<PipelineConfig>(), findPreset("pinned")->config);
  const auto back = panel.backendOptions();
  EXPECT_EQ(back.choice, BackendChoice::Simulator);
  EXPECT_EQ(back.simulatorProfile, "h200");
  EXPECT_DOUBLE_EQ(back.simulatorSlowdown, 5.0);
}

TEST(ControlPanel, EveryKnobHasATooltipAndEveryCountItsUnit) {
  ControlPanel panel;
  int knobs = 0;
  for (QWidget* w : panel.findChildren<QWidget*>()) {
    const bool knob = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) || qobject_cast<QCheckBox*>(w) ||
                      qobject_cast<ByteSizeEdit*>(w);
    if (!knob || qobject_cast<QLineEdit*>(w->parentWidget())) continue;
    if (w->parentWidget() && (qobject_cast<QAbstractSpinBox*>(w->parentWidget()) || qobject_cast<QComboBox*>(w->parentWidget())))
      continue;  // the line edit inside a spin box or combo box
    ++knobs;
    EXPECT_FALSE(w->toolTip().trimmed().isEmpty()) << w->metaObject()->className() << " " << w->objectName().toStdString();
  }
  EXPECT_GE(knobs, 18);
  // Counts carry their unit, singular for one.
  for (QSpinBox* box : panel.findChildren<QSpinBox*>()) {
    if (box->specialValueText().isEmpty() || box->value() != box->minimum()) {
      EXPECT_FALSE(box->suffix().trimmed().isEmpty()) << box->toolTip().left(40).toStdString();
    }
    const int old = box->value();
    box->setValue(1);
    if (box->value() == 1) {
      EXPECT_FALSE(box->suffix().endsWith("s")) << box->suffix().toStdString();
    }
    box->setValue(std::max(2, box->minimum()));
    if (box->value() == 2) {
      EXPECT_TRUE(box->suffix().endsWith("s")) << box->suffix().toStdString();
    }
    box->setValue(old);
  }
}
