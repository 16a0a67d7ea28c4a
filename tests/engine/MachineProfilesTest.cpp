// This machine's calibrations: where they live, how they are named, and which
// profile predicts a run on a real GPU when one is found, missing or damaged. The GPU
// is faked through the DeviceInfo a backend describes (backend "cuda").
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/DerivedConfig.h"
#include "analysis/PredictionProfile.h"
#include "sim/HostSpeed.h"
#include "sim/MachineProfiles.h"

namespace pipescope {
namespace {

namespace fs = std::filesystem;

DeviceInfo gpu(const std::string& name) {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = name;
  return d;
}

/// A fresh, empty data folder for one test.
MachineContext machineIn(const std::string& test) {
  MachineContext m;
  m.folder = ::testing::TempDir() + "machine-profiles-" + test + "/pipescope/profiles";
  fs::remove_all(m.folder);
  m.host = "gpu-node-7.example";
  return m;
}

/// A calibration of `deviceName` as `calibrate` would leave it (a built-in's figures,
/// a launch cost of this host's).
DeviceProfile calibrationOf(const std::string& deviceName, double launchNs) {
  DeviceProfile p = *builtinProfile("h100-calibrated");
  p.deviceName = deviceName;
  p.kernelLaunchNs = launchNs;
  p.validation.reset();
  return p;
}

TEST(MachineProfiles, NamedAfterTheGpuAndTheHostAndKeptInTheDataFolder) {
  EXPECT_EQ(machineProfileName("NVIDIA H100 80GB HBM3", "gpu-node-7.example"), "h100-80gb-hbm3@gpu-node-7-example");
  EXPECT_EQ(machineProfileName("NVIDIA GeForce RTX 4090", "Lab PC"), "geforce-rtx-4090@lab-pc");
  const MachineContext m = machineIn("names");
  EXPECT_EQ(machineProfilePath(m, "NVIDIA H200"), m.folder + "/h200@gpu-node-7-example.json");
  MachineContext none;
  EXPECT_EQ(machineProfilePath(none, "NVIDIA H200"), "");
}

/// Sets an environment variable for one scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(MachineProfiles, TheDataFolderFollowsXdgDataHomeElseHome) {
  {
    ScopedEnv xdg("XDG_DATA_HOME", "/data/user");
    EXPECT_EQ(MachineContext::current().folder, "/data/user/pipescope/profiles");
  }
  ScopedEnv xdg("XDG_DATA_HOME", "relative/ignored");  // the XDG rules ignore a relative path
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(MachineContext::current().folder, "/home/someone/.local/share/pipescope/profiles");
  EXPECT_FALSE(MachineContext::current().host.empty());
}

TEST(MachineProfiles, AFoundCalibrationPredictsRunsOnThatGpu) {
  const MachineContext m = machineIn("found");
  const std::string path = saveMachineProfile(m, calibrationOf("NVIDIA H100 80GB HBM3", 8100));
  EXPECT_EQ(path, m.folder + "/h100-80gb-hbm3@gpu-node-7-example.json");
  const MachineProfileLookup found = findMachineProfile(m, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(found.status, MachineProfileLookup::Status::Found);
  EXPECT_EQ(found.profile->name, "h100-80gb-hbm3@gpu-node-7-example");  // saved under the machine's name
  EXPECT_DOUBLE_EQ(found.profile->kernelLaunchNs, 8100);

  const PredictionProfileChoice c = predictionProfileFor(gpu("NVIDIA H100 80GB HBM3"), m);
  ASSERT_TRUE(c.profile);
  EXPECT_TRUE(c.thisMachine);
  EXPECT_DOUBLE_EQ(c.profile->kernelLaunchNs, 8100);
  EXPECT_NE(c.note.find("this machine's own calibration"), std::string::npos) << c.note;
  EXPECT_TRUE(c.calibrationPath.empty());
  // What-ifs of traces of that GPU use it too.
  std::string why;
  const auto forTrace = profileForTrace(gpu("NVIDIA H100 80GB HBM3"), "", why, m);
  ASSERT_TRUE(forTrace);
  EXPECT_DOUBLE_EQ(forTrace->kernelLaunchNs, 8100);
  EXPECT_NE(why.find("this machine's own calibration"), std::string::npos) << why;
  // Another GPU on the same machine is not this calibration's.
  const PredictionProfileChoice other = predictionProfileFor(gpu("NVIDIA H200"), m);
  ASSERT_TRUE(other.profile);
  EXPECT_FALSE(other.thisMachine);
  EXPECT_EQ(other.profile->name, "h200-calibrated");
}

TEST(MachineProfiles, WithoutOneTheBuiltInProfileOfTheModelPredictsAndTheNoteSaysWhereACalibrationGoes) {
  const MachineContext m = machineIn("missing");
  EXPECT_EQ(findMachineProfile(m, "NVIDIA H100 80GB HBM3").status, MachineProfileLookup::Status::NotFound);
  const PredictionProfileChoice c = predictionProfileFor(gpu("NVIDIA H100 80GB HBM3"), m);
  ASSERT_TRUE(c.profile);
  EXPECT_FALSE(c.thisMachine);
  EXPECT_EQ(c.profile->name, "h100-calibrated");
  EXPECT_NE(c.note.find("no calibration of this machine yet"), std::string::npos) << c.note;
  EXPECT_EQ(c.calibrationPath, m.folder + "/h100-80gb-hbm3@gpu-node-7-example.json");
  // A simulated run is its own prediction, calibrated or not.
  DeviceInfo sim;
  sim.backend = "simulator";
  sim.name = "NVIDIA H100 80GB HBM3";
  EXPECT_FALSE(predictionProfileFor(sim, m).profile);
  MachineContext none;
  EXPECT_EQ(findMachineProfile(none, "NVIDIA H100 80GB HBM3").status, MachineProfileLookup::Status::NoFolder);
}

TEST(MachineProfiles, ADamagedCalibrationIsNamedAndNeverUsed) {
  const MachineContext m = machineIn("damaged");
  fs::create_directories(m.folder);
  const std::string path = machineProfilePath(m, "NVIDIA H100 80GB HBM3");
  const auto expectDamaged = [&](const std::string& contents, const std::string& why) {
    std::ofstream(path, std::ios::trunc) << contents;
    const MachineProfileLookup r = findMachineProfile(m, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(r.status, MachineProfileLookup::Status::Damaged) << contents;
    EXPECT_NE(r.message.find(path), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(why), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("calibrate again"), std::string::npos) << r.message;
    const PredictionProfileChoice c = predictionProfileFor(gpu("NVIDIA H100 80GB HBM3"), m);
    ASSERT_TRUE(c.profile);  // the built-in one stands in
    EXPECT_FALSE(c.thisMachine);
    EXPECT_EQ(c.profile->name, "h100-calibrated");
    EXPECT_NE(c.note.find("cannot be used"), std::string::npos) << c.note;
  };
  expectDamaged("{\"name\": \"h100", "not valid JSON");                      // truncated mid-write
  expectDamaged("{\"name\": \"x\", \"kernelLaunchNs\": \"fast\"}", "kernelLaunchNs");  // a wrong field
  nlohmann::json otherGpu = profileToJson(calibrationOf("NVIDIA H200", 5000));
  expectDamaged(otherGpu.dump(), "describes 'NVIDIA H200'");                // copied from another machine
}

TEST(MachineProfiles, ABareNameLoadsThisMachinesCalibration) {
  const MachineContext m = machineIn("byname");
  saveMachineProfile(m, calibrationOf("NVIDIA H100 80GB HBM3", 7000));
  // m.folder is XDG_DATA_HOME/pipescope/profiles.
  ScopedEnv xdg("XDG_DATA_HOME", fs::path(m.folder).parent_path().parent_path().string());
  std::string error;
  // The saved one loads by its name, and an unknown name lists it.
  const auto p = loadDeviceProfile("h100-80gb-hbm3@gpu-node-7-example", error);
  ASSERT_TRUE(p) << error;
  EXPECT_DOUBLE_EQ(p->kernelLaunchNs, 7000);
  EXPECT_FALSE(loadDeviceProfile("no-such-profile", error));
  EXPECT_NE(error.find("h100-80gb-hbm3@gpu-node-7-example"), std::string::npos) << error;
  EXPECT_EQ(machineProfileNames(m), std::vector<std::string>{"h100-80gb-hbm3@gpu-node-7-example"});
}

TEST(MachineProfiles, TheHostNoticeSaysHowFarThisHostIsFromTheBuiltInProfileAndHowToCalibrate) {
  DeviceProfile builtin = *builtinProfile("h100-calibrated");
  builtin.kernelLaunchNs = 5400;
  const std::string slow = machineHostNotice(8100, builtin, "/home/u/.local/share/pipescope/profiles/h100@n.json");
  EXPECT_NE(slow.find("8.1 us, 1.50x the 5.4 us of the built-in profile 'h100-calibrated'"), std::string::npos) << slow;
  EXPECT_NE(slow.find("slower"), std::string::npos) << slow;
  EXPECT_NE(slow.find("'pipescope-cli calibrate --quick'"), std::string::npos) << slow;
  EXPECT_NE(slow.find("saved as /home/u/.local/share/pipescope/profiles/h100@n.json"), std::string::npos) << slow;
  EXPECT_NE(machineHostNotice(5600, builtin, "").find("close to the host"), std::string::npos);
  EXPECT_NE(machineHostNotice(4000, builtin, "").find("faster"), std::string::npos);
}

}  // namespace
}  // namespace pipescope
