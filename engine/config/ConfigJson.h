#pragma once
// PipelineConfig <-> JSON, shared by --config files, saved traces and sweep output.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "config/ConfigOrigins.h"
#include "config/PipelineConfig.h"

namespace pipescope {

nlohmann::json configToJson(const PipelineConfig& config);
/// Applies the fields present in `j` on top of `base`. Unknown fields and wrongly
/// typed values are errors (a typo in a config file must not be silently ignored);
/// throws std::invalid_argument with the field name and what was expected.
PipelineConfig configFromJson(const nlohmann::json& j, PipelineConfig base = {});
/// Reads a JSON config file; throws std::runtime_error naming the file on failure.
/// With `origins`, marks each field the file sets as coming from it, so that a value
/// error found later by validate() names the file (ConfigOrigins::describe).
PipelineConfig loadConfigFile(const std::string& path, PipelineConfig base = {}, ConfigOrigins* origins = nullptr);

}  // namespace pipescope
