#include "app/LaunchMode.h"

#include <cstdlib>
#include <string_view>

namespace pipescope::ui {

LaunchMode launchModeOf(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") break;
    // QCommandLineParser accepts "--opt=value" and "--opt value" alike.
    if (const auto eq = a.find('='); eq != std::string_view::npos) a = a.substr(0, eq);
    if (a == "-h" || a == "-?" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version" ||
        a == "--screenshot" || a == "-screenshot" || a == "--sweep-json" || a == "-sweep-json")
      return LaunchMode::Headless;
  }
  return LaunchMode::Window;
}

bool printsTextOnly(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a == "-h" || a == "-?" || a == "--help" || a == "-v" || a == "--version") return true;
  }
  return false;
}

bool selectHeadlessPlatform(int argc, const char* const* argv) {
  const char* set = std::getenv("QT_QPA_PLATFORM");
  if (set != nullptr && *set != '\0') return false;
  if (launchModeOf(argc, argv) != LaunchMode::Headless) return false;
  return setenv("QT_QPA_PLATFORM", "offscreen", 1) == 0;
}

}  // namespace pipescope::ui
