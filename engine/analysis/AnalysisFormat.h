#pragma once
// Number formatting shared by the analysis texts (engine side, Qt-free).
#include <string>

namespace pipescope {

/// "850 ns", "12.3 µs", "0.31 ms", "24.1 ms", "1.23 s".
std::string formatNs(double ns);
/// "31%" (fraction 0.31).
std::string formatPercent(double fraction);
/// "3.9x", "1.05x".
std::string formatRatio(double ratio);
/// Three significant figures.
std::string formatFigure(double v);

}  // namespace pipescope
