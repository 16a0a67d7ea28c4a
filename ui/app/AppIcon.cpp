#include "app/AppIcon.h"

#include <QImageReader>
#include <QPixmap>

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
  // Decoded as PNG, no format detection: QIcon::addFile (and QImage::load) ask
  // every image-format plugin whether it can read the file, loading them all (SVG,
  // JPEG, GIF, ICO) before the first frame. The 256 px image covers larger sizes; the SVG is installed into
  // the icon theme for the desktop.
  QIcon icon;
  for (int size : appIconSizes()) {
    QImageReader png(QStringLiteral(":/pipescope/icons/pipescope-%1.png").arg(size), "png");
    png.setAutoDetectImageFormat(false);
    icon.addPixmap(QPixmap::fromImage(png.read()));
  }
  return icon;
}

}  // namespace pipescope::ui
