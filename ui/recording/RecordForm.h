#pragma once
// What Run › Record a program… asks for, checked before anything starts: the program
// (a name found on PATH, or a path to an executable file), its arguments as a shell
// would split them, a working folder that exists, and extra environment variables
// (NAME=VALUE, one per line). Each problem gets a sentence naming the field.
#include <QString>
#include <QStringList>
#include <optional>

#include "record/Recorder.h"

namespace pipescope::ui {

struct RecordForm {
  QString program;
  QString arguments;         ///< as typed: 'train.py --epochs 2 --name "run a"'
  QString workingDirectory;  ///< empty: the app's
  QString environment;       ///< NAME=VALUE lines; blank lines and '#' comments ignored
  int device = -1;           ///< -1: every device

  /// The request to record, or nullopt with `problem` saying what to fix.
  std::optional<record::RecordRequest> request(QString* problem) const;
};

/// Splits an argument line as a POSIX shell would (quotes, backslashes; no variables,
/// no globbing). nullopt with `problem` set for an unterminated quote.
std::optional<QStringList> splitArguments(const QString& line, QString* problem = nullptr);

/// The program's path, as it will be started, or nullopt with `problem` set.
std::optional<QString> resolveProgram(const QString& program, const QString& workingDirectory, QString* problem);

}  // namespace pipescope::ui
