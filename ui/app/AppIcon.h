#pragma once
// The application icon (resources/icons): pre-rendered PNGs from 16 to 256 px, so
// the title bar and task bar get a crisp image at each size with no image-format
// plugin or SVG icon engine loaded.
#include <QIcon>
#include <vector>

namespace pipescope::ui {

/// PNG sizes shipped in the resources and installed into the hicolor theme.
const std::vector<int>& appIconSizes();
QIcon appIcon();

}  // namespace pipescope::ui
