#include "app/Theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

namespace pipescope::ui {

namespace {
Theme g_current = Theme::Light;
}

QString toString(Theme theme) { return theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light"); }

std::optional<Theme> parseTheme(const QString& name) {
  const QString n = name.trimmed().toLower();
  if (n == "light") return Theme::Light;
  if (n == "dark") return Theme::Dark;
  return std::nullopt;
}

QPalette themePalette(Theme theme) {
  if (theme == Theme::Light) {
    // Fusion's own light palette, with a white plot background that prints cleanly.
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create("Fusion"));
    QPalette p = fusion ? fusion->standardPalette() : QPalette();
    p.setColor(QPalette::Base, Qt::white);
    return p;
  }
  // Dark: backgrounds dark enough for the op colours (Okabe-Ito) to stand out,
  // text light enough to read from the back of a room.
  const QColor window(0x2B, 0x2F, 0x36), base(0x1E, 0x21, 0x26), text(0xE6, 0xE8, 0xEB), mid(0x4A, 0x50, 0x5A);
  QPalette p;
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, QColor(0x3A, 0x3F, 0x48));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(0x9A, 0xA0, 0xA8));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window.lighter(115));
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xFF, 0x6B, 0x6B));
  p.setColor(QPalette::Light, window.lighter(150));
  p.setColor(QPalette::Midlight, window.lighter(125));
  p.setColor(QPalette::Mid, mid);
  p.setColor(QPalette::Dark, window.darker(150));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Highlight, QColor(0x3D, 0x8E, 0xE0));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6C, 0xB4, 0xFF));
  p.setColor(QPalette::LinkVisited, QColor(0xB4, 0x8C, 0xFF));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor(0x80, 0x86, 0x8F));
  return p;
}

QPalette presentationPalette() {
  const std::unique_ptr<QStyle> fusion(QStyleFactory::create("Fusion"));
  QPalette p = fusion ? fusion->standardPalette() : QPalette();
  const QColor ink(0, 0, 0), paper(Qt::white), muted(0x4A, 0x4A, 0x4A);
  for (auto role : {QPalette::Window, QPalette::Base, QPalette::AlternateBase, QPalette::Button, QPalette::ToolTipBase})
    p.setColor(role, paper);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText})
    p.setColor(role, ink);
  p.setColor(QPalette::AlternateBase, QColor(0xEE, 0xEE, 0xEE));
  p.setColor(QPalette::PlaceholderText, muted);
  p.setColor(QPalette::Mid, muted);
  p.setColor(QPalette::Dark, QColor(0x30, 0x30, 0x30));
  p.setColor(QPalette::Highlight, QColor(0x00, 0x5A, 0xB5));
  p.setColor(QPalette::HighlightedText, paper);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, muted);
  return p;
}

void applyTheme(Theme theme) {
  g_current = theme;
  if (!qobject_cast<QApplication*>(QCoreApplication::instance())) return;  // a CLI-only process has no widgets
  if (QApplication::style()->name().compare("fusion", Qt::CaseInsensitive) != 0) QApplication::setStyle("Fusion");
  QApplication::setPalette(themePalette(theme));
}

Theme currentTheme() { return g_current; }

bool isDarkPalette(const QPalette& palette) { return palette.color(QPalette::Window).lightnessF() < 0.5; }

}  // namespace pipescope::ui
