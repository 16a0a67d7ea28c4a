// The profile that predicts a measured lesson run: calibrated on the same GPU model.
#include <gtest/gtest.h>

#include "analysis/PredictionProfile.h"

namespace pipescope {
namespace {

DeviceInfo gpu(const std::string& name) {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = name;
  return d;
}

TEST(PredictionProfile, ModelIsTheWordWithLettersAndDigits) {
  EXPECT_EQ(gpuModel("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(gpuModel("NVIDIA H200"), "H200");
  EXPECT_EQ(gpuModel("NVIDIA GeForce RTX 4090"), "RTX 4090");
  EXPECT_EQ(gpuModel("Tesla C1060-like (model)"), "C1060-like");
  EXPECT_EQ(gpuModel("Simulator"), "");
}

TEST(PredictionProfile, CalibratedProfileOfTheSameModelIsChosen) {
  auto c = predictionProfileFor(gpu("NVIDIA H100 80GB HBM3"));
  ASSERT_TRUE(c.profile);
  EXPECT_EQ(c.profile->name, "h100-calibrated");
  c = predictionProfileFor(gpu("NVIDIA H100 PCIe"));  // another H100: same model
  ASSERT_TRUE(c.profile);
  EXPECT_EQ(c.profile->name, "h100-calibrated");
  EXPECT_NE(c.note.find("same model"), std::string::npos) << c.note;
  c = predictionProfileFor(gpu("NVIDIA H200"));  // calibrated wins over the hand-written h200
  ASSERT_TRUE(c.profile);
  EXPECT_EQ(c.profile->name, "h200-calibrated");
}

TEST(PredictionProfile, NoneForAnUnknownCardOrASimulatedRun) {
  auto c = predictionProfileFor(gpu("NVIDIA GeForce RTX 4090"));
  EXPECT_FALSE(c.profile);
  EXPECT_NE(c.note.find("calibrate"), std::string::npos) << c.note;
  DeviceInfo sim;
  sim.backend = "simulator";
  sim.name = "NVIDIA H200 (simulated)";
  c = predictionProfileFor(sim);
  EXPECT_FALSE(c.profile);
  std::string error;
  c = choosePredictionProfile("pcie4-desktop", sim, error);
  ASSERT_TRUE(c.profile) << error;
  EXPECT_EQ(c.profile->name, "pcie4-desktop");
  c = choosePredictionProfile("/no/such/profile.json", sim, error);
  EXPECT_FALSE(c.profile);
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace pipescope
