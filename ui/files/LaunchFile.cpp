#include "files/LaunchFile.h"

#include <QCommandLineParser>
#include <QObject>
#include <QUrl>

namespace pipescope::ui::files {

void addLaunchFileArgument(QCommandLineParser& parser) {
  parser.addPositionalArgument(
      "file", QObject::tr("A trace to open: .pipescope, or Chrome/Perfetto or PyTorch profiler JSON, plain or .gz."),
      "[file]");
}

QString launchFile(const QStringList& positional, const QString& openOption) {
  QString arg = positional.isEmpty() ? openOption : positional.first();
  // Some launchers pass URLs even for %f; only local files can be opened.
  if (arg.startsWith(QLatin1String("file:"))) arg = QUrl(arg).toLocalFile();
  return arg;
}

QString launchFile(const QCommandLineParser& parser) {
  return launchFile(parser.positionalArguments(), parser.isSet("open") ? parser.value("open") : QString());
}

}  // namespace pipescope::ui::files
