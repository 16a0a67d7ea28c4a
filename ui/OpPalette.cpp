#include "OpPalette.h"

namespace pipescope::ui {

namespace {
OpColors g_colors = OpColors::Standard;

QColor highContrastColor(OpKind kind) {
  switch (kind) {
    case OpKind::Preprocess: return QColor(0x80, 0x80, 0x80);   // grey: CPU work
    case OpKind::CopyH2D: return QColor(0x00, 0x72, 0xB2);      // blue
    case OpKind::Kernel: return QColor(0x00, 0x7A, 0x5A);       // green, darker
    case OpKind::CopyD2H: return QColor(0xC0, 0x50, 0x0A);      // vermillion, darker
    case OpKind::Postprocess: return QColor(0x3C, 0x3C, 0x3C);  // dark grey
    case OpKind::HostSync: return QColor(0x00, 0x00, 0x00);     // black: waiting
    case OpKind::ApiCall: return QColor(0xA8, 0x50, 0x8A);      // purple, darker
    case OpKind::Memset: return QColor(0x5A, 0x3C, 0x96);       // violet
    case OpKind::Annotation: return QColor(0x1E, 0x5A, 0x5A);   // dark teal
    case OpKind::PeerCopy: return QColor(0x69, 0x1E, 0x00);     // dark brown: GPU to GPU
    case OpKind::Collective: return QColor(0xA5, 0x1E, 0xFF);   // violet: NCCL collective
  }
  return QColor(Qt::black);
}
}  // namespace

void setOpColors(OpColors colors) { g_colors = colors; }
OpColors opColors() { return g_colors; }

QColor opKindColor(OpKind kind) {
  if (g_colors == OpColors::HighContrast) return highContrastColor(kind);
  switch (kind) {
    case OpKind::Preprocess: return QColor(0x99, 0x99, 0x99);   // grey: CPU work
    case OpKind::CopyH2D: return QColor(0x00, 0x72, 0xB2);      // blue
    case OpKind::Kernel: return QColor(0x00, 0x9E, 0x73);       // green
    case OpKind::CopyD2H: return QColor(0xD5, 0x5E, 0x00);      // vermillion
    case OpKind::Postprocess: return QColor(0x6A, 0x6A, 0x6A);  // darker grey
    case OpKind::HostSync: return QColor(0xF0, 0xE4, 0x42);     // yellow: waiting
    case OpKind::ApiCall: return QColor(0xCC, 0x79, 0xA7);      // purple: API overhead
    case OpKind::Memset: return QColor(0x56, 0xB4, 0xE9);       // sky blue
    case OpKind::Annotation: return QColor(0xE6, 0x9F, 0x00);   // orange
    case OpKind::PeerCopy: return QColor(0x88, 0x22, 0x55);     // wine: GPU to GPU
    case OpKind::Collective: return QColor(0x33, 0x22, 0x88);   // indigo: NCCL collective
  }
  return QColor(Qt::black);
}

QString opKindLabel(OpKind kind) {
  switch (kind) {
    case OpKind::Preprocess: return QStringLiteral("Preprocess (CPU)");
    case OpKind::CopyH2D: return QStringLiteral("H2D copy");
    case OpKind::Kernel: return QStringLiteral("Kernel");
    case OpKind::CopyD2H: return QStringLiteral("D2H copy");
    case OpKind::Postprocess: return QStringLiteral("Postprocess (CPU)");
    case OpKind::HostSync: return QStringLiteral("Host sync");
    case OpKind::ApiCall: return QStringLiteral("API call");
    case OpKind::Memset: return QStringLiteral("Memset");
    case OpKind::Annotation: return QStringLiteral("Annotation");
    case OpKind::PeerCopy: return QStringLiteral("Peer copy (GPU→GPU)");
    case OpKind::Collective: return QStringLiteral("Collective (NCCL)");
  }
  return QString();
}

QColor waitColor(OpKind kind) { return opKindColor(kind).lighter(160); }

}  // namespace pipescope::ui
