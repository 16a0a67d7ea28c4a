#pragma once
// Writes a painted figure to a file: PNG at 2x scale (crisp in a report or on a
// high-DPI projector) or SVG (QSvgGenerator, vector, for print). The format follows
// the file's extension; the painter sees the same logical size either way.
#include <QColor>
#include <QRect>
#include <QSize>
#include <QString>
#include <functional>

class QPainter;

namespace pipescope::ui {

enum class ImageFormat { Png, Svg };

/// PNG pixels per logical pixel.
inline constexpr int kPngScale = 2;

/// By extension (.png / .svg, any case); nullopt-like false when neither.
bool imageFormatFromPath(const QString& path, ImageFormat* format);

/// Paints `paint(painter, QRect(0, 0, size))` into `path`. Returns false with a
/// message in `error` (unknown extension, file not writable).
bool saveImage(const QString& path, QSize logicalSize, const std::function<void(QPainter&, const QRect&)>& paint,
               const QString& title, QString* error, const QColor& background = Qt::white);

}  // namespace pipescope::ui
