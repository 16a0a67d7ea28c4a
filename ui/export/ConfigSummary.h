#pragma once
// A configuration as short "knob: value" lines, for the report image and tooltips.
#include <QStringList>

#include "config/PipelineConfig.h"

namespace pipescope::ui {

QStringList configSummaryLines(const PipelineConfig& c);

}  // namespace pipescope::ui
