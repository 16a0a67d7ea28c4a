#pragma once
// The checks every optional number of a device profile gets: absent from the JSON at
// its default (old profiles keep their meaning), a value surviving a round trip, and
// out-of-range values refused with a message that names the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/DeviceProfile.h"

namespace pipescope::simtest {

inline void expectOptionalProfileNumber(const char* key, double DeviceProfile::*field, const DeviceProfile& base,
                                        double value, double tooLarge) {
  DeviceProfile p = base;
  EXPECT_FALSE(profileToJson(p).contains(key)) << key;
  EXPECT_EQ(profileFromJson(profileToJson(p)).*field, p.*field) << key;
  p.*field = value;
  EXPECT_EQ(profileFromJson(profileToJson(p)).*field, value) << key;
  nlohmann::json bad = profileToJson(p);
  bad[key] = tooLarge;
  try {
    profileFromJson(bad);
    ADD_FAILURE() << key << " = " << tooLarge << " was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
  }
  bad[key] = -1.0;
  EXPECT_THROW(profileFromJson(bad), std::invalid_argument) << key;
}

/// The message profileFromJson gives for `profile` with `key` set to `value`, or
/// "accepted" when it takes it.
inline std::string profileError(const nlohmann::json& profile, const char* key, const nlohmann::json& value) {
  nlohmann::json bad = profile;
  bad[key] = value;
  try {
    profileFromJson(bad);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace pipescope::simtest
