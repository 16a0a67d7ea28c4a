#pragma once
// PipelineConfig <-> JSON, shared by --config files, saved traces and sweep output.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "config/PipelineConfig.h"

namespace pipescope {

nlohmann::json configToJson(const PipelineConfig& config);
/// Applies the fields present in `j` on top of `base`. Unknown fields and wrongly
/// typed values are errors (a typo in a config file must not be silently ignored);
/// throws std::invalid_argument with the field name and what was expected.
PipelineConfig configFromJson(const nlohmann::json& j, PipelineConfig base = {});
/// Reads a JSON config file; throws std::runtime_error naming the file on failure.
PipelineConfig loadConfigFile(const std::string& path, PipelineConfig base = {});

}  // namespace pipescope
