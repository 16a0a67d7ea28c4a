// Run › Calibrate this GPU…: disabled with the reason when there is no GPU, and a
// dialog whose progress bar follows the calibration and which saves this machine's
// profile. The GPU and the calibration are faked through CalibrationServices.
#include <gtest/gtest.h>

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <atomic>
#include <filesystem>
#include <stdexcept>

#include "AppTestSupport.h"
#include "MainWindow.h"
#include "app/CalibrateGpuAction.h"
#include "sim/MachineProfiles.h"

using namespace pipescope;
using namespace pipescope::ui;
using namespace pipescope::ui::testing;

namespace {

CalibrationServices fakeGpu(const QString& dataFolder,
                            std::function<DeviceProfile(const MachineCalibrationOptions&)> calibrate) {
  CalibrationServices s;
  s.presence = [] { return GpuPresence{true, "NVIDIA H100 80GB HBM3", {}}; };
  s.calibrate = std::move(calibrate);
  s.machine = [dataFolder] { return MachineContext{dataFolder.toStdString(), "lab-pc"}; };
  return s;
}

}  // namespace

TEST(CalibrateGpu, WithoutAGpuTheActionIsDisabledAndSaysWhy) {
  MainWindow w(MainWindow::Options{false});
  CalibrationServices none;
  none.presence = [] { return GpuPresence{false, {}, "no CUDA GPU on this machine (no driver)"}; };
  CalibrateGpuAction a(&w, none);
  a.lookForGpu();
  ASSERT_TRUE(waitFor([&] { return a.presenceKnown(); }));
  EXPECT_FALSE(a.action()->isEnabled());
  EXPECT_TRUE(a.action()->toolTip().contains("no CUDA GPU on this machine (no driver)"))
      << a.action()->toolTip().toStdString();
  EXPECT_EQ(a.open(), nullptr);
  // The window's own action is in the Run menu, whatever this machine has.
  EXPECT_EQ(w.calibrateGpu().action()->text(), "&Calibrate this GPU…");
}

// Looking for a GPU loads the CUDA module and the driver: never before the user opens
// the Run menu (a start that never uses CUDA loads no CUDA library), and only once.
TEST(CalibrateGpu, TheGpuIsLookedForWhenTheRunMenuFirstOpens) {
  MainWindow w(MainWindow::Options{false});
  std::atomic<int> looks{0};
  CalibrationServices counted;
  counted.presence = [&] {
    ++looks;
    return GpuPresence{false, {}, "no CUDA GPU on this machine (no driver)"};
  };
  CalibrateGpuAction a(&w, counted);
  EXPECT_FALSE(waitFor([&] { return looks > 0; }, 200));
  EXPECT_FALSE(a.presenceKnown());
  a.lookForGpu();
  a.lookForGpu();
  ASSERT_TRUE(waitFor([&] { return a.presenceKnown(); }));
  EXPECT_EQ(looks, 1);

  // The window's own action waits for its Run menu.
  EXPECT_FALSE(waitFor([&] { return w.calibrateGpu().presenceKnown(); }, 200));
  QMenu* run = nullptr;
  for (QAction* m : w.menuBar()->actions())
    if (m->text() == "&Run") run = m->menu();
  ASSERT_TRUE(run);
  emit run->aboutToShow();
  ASSERT_TRUE(waitFor([&] { return w.calibrateGpu().presenceKnown(); }));
}

TEST(CalibrateGpu, TheDialogFollowsTheCalibrationAndSavesThisMachinesProfile) {
  MainWindow w(MainWindow::Options{false});
  QTemporaryDir data;
  std::atomic<bool> release{false};
  bool sawQuick = false;
  CalibrateGpuAction a(&w, fakeGpu(data.path(), [&](const MachineCalibrationOptions& o) {
    sawQuick = o.quick;
    o.log("host API: kernel launch 8100.0 ns");
    o.progress(0.4, "the pipeline's own host costs");
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    DeviceProfile p = *builtinProfile("h100-calibrated");
    p.validation.reset();
    p.kernelLaunchNs = 8100;
    return p;
  }));
  a.lookForGpu();
  ASSERT_TRUE(waitFor([&] { return a.presenceKnown(); }));
  ASSERT_TRUE(a.action()->isEnabled());
  CalibrationDialog* d = a.open();
  ASSERT_TRUE(d);
  QSignalSpy saved(d, &CalibrationDialog::calibrated);
  d->start(true);
  EXPECT_EQ(d->state(), CalibrationDialog::State::Running);
  ASSERT_TRUE(waitFor([&] { return d->progressPermille() == 400; }));
  EXPECT_TRUE(d->stageText().contains("the pipeline's own host costs")) << d->stageText().toStdString();
  d->reject();  // closing is refused while it runs
  EXPECT_TRUE(d->isVisible());
  release = true;
  ASSERT_TRUE(waitFor([&] { return d->state() == CalibrationDialog::State::Done; }));
  EXPECT_TRUE(sawQuick);
  EXPECT_EQ(d->progressPermille(), 1000);
  ASSERT_EQ(saved.count(), 1);
  const std::string path = d->savedPath().toStdString();
  EXPECT_EQ(path, data.path().toStdString() + "/h100-80gb-hbm3@lab-pc.json");
  EXPECT_TRUE(d->resultText().contains(d->savedPath()));
  const MachineProfileLookup found = findMachineProfile({data.path().toStdString(), "lab-pc"}, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(found.status, MachineProfileLookup::Status::Found);
  EXPECT_DOUBLE_EQ(found.profile->kernelLaunchNs, 8100);
}

TEST(CalibrateGpu, AFailedCalibrationSaysWhyAndSavesNothing) {
  MainWindow w(MainWindow::Options{false});
  QTemporaryDir data;
  CalibrateGpuAction a(&w, fakeGpu(data.path(), [](const MachineCalibrationOptions&) -> DeviceProfile {
    throw std::runtime_error("cudaMalloc failed: out of memory");
  }));
  a.lookForGpu();
  ASSERT_TRUE(waitFor([&] { return a.presenceKnown(); }));
  CalibrationDialog* d = a.open();
  ASSERT_TRUE(d);
  d->start(false);
  ASSERT_TRUE(waitFor([&] { return d->state() == CalibrationDialog::State::Failed; }));
  EXPECT_TRUE(d->resultText().contains("cudaMalloc failed: out of memory")) << d->resultText().toStdString();
  EXPECT_TRUE(d->resultText().contains("Nothing was saved"));
  EXPECT_TRUE(std::filesystem::is_empty(data.path().toStdString()));
  EXPECT_TRUE(w.isEnabled());  // the app goes on
}
