#include "export/ImageExport.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QBuffer>

#include "io/OutputFile.h"

namespace pipescope::ui {

bool imageFormatFromPath(const QString& path, ImageFormat* format) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "png") *format = ImageFormat::Png;
  else if (ext == "svg") *format = ImageFormat::Svg;
  else return false;
  return true;
}

bool saveImage(const QString& path, QSize size, const std::function<void(QPainter&, const QRect&)>& paint,
               const QString& title, QString* error, const QColor& background) {
  ImageFormat format;
  if (!imageFormatFromPath(path, &format)) {
    if (error) *error = QObject::tr("%1: unknown image type; use a file name ending in .png or .svg").arg(path);
    return false;
  }
  // Rendered into memory first and written with the engine's OutputFile, so a failed
  // export never leaves a half-written file behind, a file keeps its permissions, and
  // a FIFO or symbolic link is written through rather than replaced.
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (format == ImageFormat::Png) {
    QImage image(size * kPngScale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(kPngScale);
    image.fill(background);
    {
      QPainter p(&image);
      paint(p, QRect(QPoint(0, 0), size));
    }
    image.save(&buffer, "PNG");
  } else {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    svg.setDescription(QObject::tr("pipescope figure"));
    QPainter p(&svg);
    p.fillRect(QRect(QPoint(0, 0), size), background);
    paint(p, QRect(QPoint(0, 0), size));
  }
  try {
    writeOutputFile(QFile::encodeName(path).toStdString(),
                    [&](std::ostream& out) { out.write(bytes.constData(), std::streamsize(bytes.size())); });
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());  // names the file and the reason
    return false;
  }
  return true;
}

}  // namespace pipescope::ui
