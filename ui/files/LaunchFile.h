#pragma once
// `pipescope FILE`: the trace a file manager or the shell asks the app to open (the
// .desktop entry passes it as %f). --open FILE, the older spelling, still works.
#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace pipescope::ui::files {

/// Registers the FILE positional argument for --help.
void addLaunchFileArgument(QCommandLineParser& parser);

/// The file to open at start: the first positional argument, else --open; a file://
/// URL becomes its local path. Empty when none was given.
QString launchFile(const QCommandLineParser& parser);
QString launchFile(const QStringList& positional, const QString& openOption);

}  // namespace pipescope::ui::files
