// The device profile's multi-GPU fields (what `pipescope-cli calibrate` measures on a
// host with several GPUs): they round-trip, and profiles without them stay as they were.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/DeviceProfile.h"

namespace pipescope {
namespace {

DeviceProfile measured() {
  DeviceProfile p;
  p.name = "two-gpus";
  p.peerAccess = false;
  p.peerGBps = 394.5;
  p.peerLatencyNs = 2100;
  p.peerCopyCurve = {{1 << 20, 250.0}, {256 << 20, 394.5}};
  p.peerBothWaysCurve = {{1 << 20, 240.0}, {256 << 20, 389.9}};
  p.h2dBesidePeerGBps = 53.2;
  p.allreduceBusCurve = {{1 << 20, 34.7}, {256 << 20, 337.4}};
  p.allreduceBusGBps = 337.4;
  p.allreduceCurveGpus = 4;
  p.allreduceStepLatencyNs = 4500;
  return p;
}

TEST(MultiGpuProfile, MeasuredFieldsRoundTrip) {
  const DeviceProfile p = measured();
  EXPECT_EQ(profileFromJson(profileToJson(p)), p);
}

TEST(MultiGpuProfile, AProfileWithoutThemWritesNoneAndReadsBackUnmeasured) {
  DeviceProfile p;
  p.name = "one-gpu";
  const nlohmann::json j = profileToJson(p);
  for (const char* key : {"peerAccess", "peerGBps", "peerCopyCurve", "allreduceBusCurve", "allreduceCurveGpus"})
    EXPECT_FALSE(j.contains(key)) << key;
  const DeviceProfile back = profileFromJson(j);
  EXPECT_TRUE(back.peerCopyCurve.empty());
  EXPECT_EQ(back.allreduceCurveGpus, 0);
}

TEST(MultiGpuProfile, BadValuesAreRejectedWithTheField) {
  auto j = profileToJson(measured());
  j["allreduceCurveGpus"] = 100;
  try {
    profileFromJson(j);
    FAIL() << "100 GPUs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("allreduceCurveGpus"), std::string::npos) << e.what();
  }
  j = profileToJson(measured());
  j["peerGBps"] = -1;
  EXPECT_THROW(profileFromJson(j), std::invalid_argument);
}

}  // namespace
}  // namespace pipescope
