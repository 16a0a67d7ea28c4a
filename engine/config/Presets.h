#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/PipelineConfig.h"

namespace pipescope {

/// A named configuration from the teaching sequence. Names are typed by users and
/// scripts (`--preset multi-stream`), so they never change once published.
struct Preset {
  std::string name;
  std::string summary;  ///< one line for `pipescope-cli presets` and the UI
  std::string teaches;  ///< what to look for when running it
  PipelineConfig config;
};

const std::vector<Preset>& builtinPresets();
std::optional<Preset> findPreset(std::string_view name);
std::vector<std::string> presetNames();

}  // namespace pipescope
