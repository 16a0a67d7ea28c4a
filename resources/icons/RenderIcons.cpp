// Renders the application icon's SVG into the PNG sizes the hicolor icon theme and
// window managers pick from (16..256 px). Run through the `pipescope-icons` target;
// its output is committed so a build never needs a display or an SVG tool.
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
  QGuiApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() < 4) {
    std::fprintf(stderr, "usage: %s ICON.svg OUTDIR SIZE...\n", qPrintable(args.value(0)));
    return 2;
  }
  QSvgRenderer svg(args[1]);
  if (!svg.isValid()) {
    std::fprintf(stderr, "%s: not a readable SVG\n", qPrintable(args[1]));
    return 1;
  }
  const QDir out(args[2]);
  for (int i = 3; i < args.size(); ++i) {
    bool ok = false;
    const int size = args[i].toInt(&ok);
    if (!ok || size < 8 || size > 1024) {
      std::fprintf(stderr, "%s: not an icon size (8..1024)\n", qPrintable(args[i]));
      return 2;
    }
    QImage img(size, size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    svg.render(&p, QRectF(0, 0, size, size));
    p.end();
    const QString path = out.filePath(QStringLiteral("pipescope-%1.png").arg(size));
    if (!img.save(path, "PNG")) {
      std::fprintf(stderr, "%s: cannot write\n", qPrintable(path));
      return 1;
    }
    std::printf("%s\n", qPrintable(path));
  }
  return 0;
}
