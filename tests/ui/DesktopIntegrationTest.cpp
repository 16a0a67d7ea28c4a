// Desktop integration: the window icon from the resources at every shipped size,
// the .desktop file's required keys, and `pipescope --measure-startup`.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QXmlStreamReader>

#include "app/AppIcon.h"

using namespace pipescope::ui;

namespace {
// Lexically: tests/data need not exist.
const QString kResources = QDir::cleanPath(QStringLiteral(PIPESCOPE_TEST_DATA_DIR "/../../resources"));

// Fraction of a pixmap's pixels that are not fully transparent.
double coverage(const QImage& img) {
  int opaque = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) opaque += qAlpha(img.pixel(x, y)) > 0;
  return double(opaque) / (img.width() * img.height());
}
}  // namespace

TEST(DesktopIntegration, TheAppIconHasEveryShippedSize) {
  const QIcon icon = appIcon();
  ASSERT_FALSE(icon.isNull());
  const QList<QSize> sizes = icon.availableSizes();
  for (int s : appIconSizes()) {
    EXPECT_TRUE(sizes.contains(QSize(s, s))) << s;
    const QImage img = icon.pixmap(QSize(s, s)).toImage();
    ASSERT_EQ(img.size(), QSize(s, s)) << s;
    // A rounded square: most of the image is drawn, the corners are transparent.
    EXPECT_GT(coverage(img), 0.8) << s;
    EXPECT_EQ(qAlpha(img.pixel(0, 0)), 0) << s;
  }
}

TEST(DesktopIntegration, TheIconSvgIsWellFormed) {
  QFile f(kResources + "/icons/pipescope.svg");
  ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << f.fileName().toStdString();
  QXmlStreamReader xml(&f);
  bool sawSvg = false;
  while (!xml.atEnd())
    if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg")) sawSvg = true;
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_TRUE(sawSvg);
}

TEST(DesktopIntegration, TheDesktopFileStartsTheAppWithItsIcon) {
  const QString path = kResources + "/pipescope.desktop";
  ASSERT_TRUE(QFile::exists(path));
  QSettings desktop(path, QSettings::IniFormat);
  desktop.beginGroup("Desktop Entry");
  EXPECT_EQ(desktop.value("Type").toString(), "Application");
  // %f: file managers pass the file to open (pipescope FILE).
  EXPECT_EQ(desktop.value("Exec").toString(), "pipescope %f");
  EXPECT_EQ(desktop.value("Icon").toString(), "pipescope");  // the name installed into hicolor
  EXPECT_FALSE(desktop.value("Name").toString().isEmpty());
  EXPECT_TRUE(desktop.value("Categories").toString().contains("Development"));
  // Read as text: QSettings' INI syntax does not keep ';'-separated lists whole.
  QFile text(path);
  ASSERT_TRUE(text.open(QIODevice::ReadOnly));
  QString mime;
  for (const QString& line : QString::fromUtf8(text.readAll()).split('\n'))
    if (line.startsWith("MimeType=")) mime = line.mid(9);
  EXPECT_TRUE(mime.contains("application/x-pipescope")) << mime.toStdString();
  EXPECT_TRUE(mime.contains("application/json")) << mime.toStdString();
}

TEST(DesktopIntegration, TheMimeTypeMatchesPipescopeFiles) {
  QFile f(kResources + "/pipescope-mime.xml");
  ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << f.fileName().toStdString();
  QXmlStreamReader xml(&f);
  QString type, glob;
  while (!xml.atEnd()) {
    if (xml.readNext() != QXmlStreamReader::StartElement) continue;
    if (xml.name() == QLatin1String("mime-type")) type = xml.attributes().value("type").toString();
    if (xml.name() == QLatin1String("glob")) glob = xml.attributes().value("pattern").toString();
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  EXPECT_EQ(type, "application/x-pipescope");
  EXPECT_EQ(glob, "*.pipescope");
}

TEST(DesktopIntegration, MeasureStartupPrintsTheFirstFrameAndExits) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  env.insert("XDG_CONFIG_HOME", QDir::tempPath() + "/pipescope-startup-test");  // never the user's settings
  p.setProcessEnvironment(env);
  p.start(PIPESCOPE_GUI, {"--measure-startup"});
  ASSERT_TRUE(p.waitForFinished(60000));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
  EXPECT_TRUE(out.contains("first-frame-monotonic-ns ")) << out.toStdString();
  EXPECT_TRUE(out.contains("main-to-first-paint-ms ")) << out.toStdString();
}
