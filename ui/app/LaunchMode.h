#pragma once
// What kind of launch the command line asks for, decided from argv before the
// QApplication exists: the Qt platform plugin is loaded by the QApplication
// constructor, so `pipescope --help` on a machine without a display would abort
// with "could not load the Qt platform plugin" before the parser ever ran.
//
// Headless modes (--help, --help-all, --version, --screenshot, --sweep-json,
// --measure-startup is NOT one: it measures a real window) get the offscreen
// platform when QT_QPA_PLATFORM is not set; a platform the user set always wins.
namespace pipescope::ui {

enum class LaunchMode { Window, Headless };

/// Classifies the arguments (argv[0] is the program name).
LaunchMode launchModeOf(int argc, const char* const* argv);

/// True when the arguments ask for --help or --version (not --help-all, which lists
/// the GUI application's own options): the launch prints text and exits, so it needs
/// a QCoreApplication only, with no platform plugin, fonts or theme (faster, and
/// nothing on stderr, such as Qt's warning about an unset XDG_RUNTIME_DIR).
bool printsTextOnly(int argc, const char* const* argv);

/// For a headless launch with no QT_QPA_PLATFORM set, sets it to "offscreen".
/// Returns true when it did. Call before constructing QApplication.
bool selectHeadlessPlatform(int argc, const char* const* argv);

}  // namespace pipescope::ui
