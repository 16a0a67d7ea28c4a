#pragma once
// A validation's measured side saved as JSON, so the simulator can be judged
// against it again, without the GPU, after a model or profile change
// (`pipescope-cli validate --measurements FILE --profile P`). The GPU time is
// spent once; every later judgement of the same measurements is free.
#include <cstdint>
#include <optional>
#include <string>

#include "sim/Validation.h"

namespace pipescope {

struct ValidationRecord {
  std::string measuredDevice;   ///< DeviceInfo::summary() of the measured side
  std::string profile;          ///< the profile the predictions in `report` used
  std::optional<std::uint64_t> seed;  ///< random set's seed; empty for the fixed matrix
  std::string recordedAt;       ///< UTC time of the measurement
  ValidationReport report;
};

std::string validationRecordToJson(const ValidationRecord& record);
/// Throws std::runtime_error naming the file and the problem.
ValidationRecord loadValidationRecord(const std::string& path);

}  // namespace pipescope
