#pragma once
// The application icon (resources/icons): the SVG plus pre-rendered PNGs, so the
// title bar and task bar get a crisp image at each size even where no SVG icon
// engine is installed.
#include <QIcon>
#include <vector>

namespace pipescope::ui {

/// PNG sizes shipped in the resources and installed into the hicolor theme.
const std::vector<int>& appIconSizes();
QIcon appIcon();

}  // namespace pipescope::ui
