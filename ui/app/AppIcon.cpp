#include "app/AppIcon.h"

// Q_INIT_RESOURCE must be called outside any namespace; the resources live in the
// static pipescope_ui library, whose initialiser the linker would otherwise drop.
static void initPipescopeResources() { Q_INIT_RESOURCE(pipescope); }

namespace pipescope::ui {

const std::vector<int>& appIconSizes() {
  static const std::vector<int> sizes{16, 22, 24, 32, 48, 64, 128, 256};
  return sizes;
}

QIcon appIcon() {
  initPipescopeResources();
  QIcon icon;
  for (int size : appIconSizes()) icon.addFile(QStringLiteral(":/pipescope/icons/pipescope-%1.png").arg(size), QSize(size, size));
  icon.addFile(QStringLiteral(":/pipescope/icons/pipescope.svg"));
  return icon;
}

}  // namespace pipescope::ui
