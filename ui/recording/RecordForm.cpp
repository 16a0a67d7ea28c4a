#include "recording/RecordForm.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace pipescope::ui {

std::optional<QStringList> splitArguments(const QString& line, QString* problem) {
  QStringList out;
  QString current;
  bool inWord = false;
  QChar quote;
  for (int i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (!quote.isNull()) {
      if (c == quote) {
        quote = QChar();
      } else if (c == '\\' && quote == '"' && i + 1 < line.size() &&
                 QString("\"\\$`").contains(line[i + 1])) {
        current += line[++i];
      } else {
        current += c;
      }
      continue;
    }
    if (c.isSpace()) {
      if (inWord) out << current;
      current.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < line.size()) {
      current += line[++i];
    } else {
      current += c;
    }
  }
  if (!quote.isNull()) {
    if (problem) *problem = QObject::tr("Arguments: the %1 quote opened is never closed.").arg(quote);
    return std::nullopt;
  }
  if (inWord) out << current;
  return out;
}

std::optional<QString> resolveProgram(const QString& program, const QString& workingDirectory, QString* problem) {
  const QString p = program.trimmed();
  if (p.isEmpty()) {
    if (problem) *problem = QObject::tr("Program: name the program to record (e.g. python3).");
    return std::nullopt;
  }
  if (!p.contains('/')) {
    const QString found = QStandardPaths::findExecutable(p);
    if (found.isEmpty()) {
      if (problem) *problem = QObject::tr("Program: '%1' is not a program on PATH.").arg(p);
      return std::nullopt;
    }
    return p;  // started by name: the PATH search happens again at start
  }
  const QFileInfo info(QDir(workingDirectory.isEmpty() ? QDir::currentPath() : workingDirectory), p);
  if (!info.exists()) {
    if (problem) *problem = QObject::tr("Program: %1 does not exist.").arg(info.absoluteFilePath());
    return std::nullopt;
  }
  if (info.isDir() || !info.isExecutable()) {
    if (problem) *problem = QObject::tr("Program: %1 is not an executable file.").arg(info.absoluteFilePath());
    return std::nullopt;
  }
  return p;
}

std::optional<record::RecordRequest> RecordForm::request(QString* problem) const {
  record::RecordRequest r;
  const QString dir = workingDirectory.trimmed();
  if (!dir.isEmpty() && !QFileInfo(dir).isDir()) {
    if (problem) *problem = QObject::tr("Working folder: %1 is not a folder.").arg(dir);
    return std::nullopt;
  }
  const auto programPath = resolveProgram(program, dir, problem);
  if (!programPath) return std::nullopt;
  const auto args = splitArguments(arguments, problem);
  if (!args) return std::nullopt;
  r.command.push_back(programPath->toStdString());
  for (const QString& a : *args) r.command.push_back(a.toStdString());
  r.workingDirectory = dir.toStdString();
  static const QRegularExpression name("^[A-Za-z_][A-Za-z0-9_]*$");
  const QStringList lines = environment.split('\n');
  for (int i = 0; i < lines.size(); ++i) {
    const QString line = lines[i].trimmed();
    if (line.isEmpty() || line.startsWith('#')) continue;
    const int eq = line.indexOf('=');
    const QString key = eq < 0 ? line : line.left(eq);
    if (eq < 0 || !name.match(key).hasMatch()) {
      if (problem)
        *problem = QObject::tr("Environment, line %1: '%2' is not NAME=VALUE (a name is letters, digits and _, "
                               "not starting with a digit).")
                       .arg(i + 1)
                       .arg(line);
      return std::nullopt;
    }
    r.environment[key.toStdString()] = line.mid(eq + 1).toStdString();
  }
  r.device = device;
  return r;
}

}  // namespace pipescope::ui
