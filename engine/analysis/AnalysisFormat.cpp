#include "analysis/AnalysisFormat.h"

#include <cmath>
#include <cstdio>

namespace pipescope {

namespace {
std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
}  // namespace

std::string formatFigure(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt("%.0f", v);
  if (a >= 10) return fmt("%.1f", v);
  return fmt("%.2f", v);
}

std::string formatNs(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return fmt("%.0f ns", ns);
  if (a < 1e6) return formatFigure(ns / 1e3) + " µs";
  if (a < 1e9) return formatFigure(ns / 1e6) + " ms";
  return formatFigure(ns / 1e9) + " s";
}

std::string formatPercent(double fraction) { return fmt("%.0f%%", fraction * 100.0); }

std::string formatRatio(double ratio) {
  if (ratio >= 10) return fmt("%.0fx", ratio);
  // Small effects need the second decimal: "1.05x", not "1.1x".
  if (ratio < 1.2) return fmt("%.2fx", ratio);
  return fmt("%.1fx", ratio);
}

}  // namespace pipescope
