#pragma once
// Autosave of the app's live runs: a run without a batch limit (it goes on until
// stopped, perhaps for hours) is streamed to a native trace file in the autosave
// folder while it runs (TraceStreamWriter: chunks synced at least once a second), so
// a crash, a kill or a power cut loses at most the last second. A run that is torn
// down while still live (the window closed during it) is kept there too, without a
// question. On by default; the Run menu turns it off. The folder is
// $PIPESCOPE_AUTOSAVE_DIR when set, else "autosave" in the app's data folder; the 20
// newest files are kept.
#include <QString>
#include <memory>

#include "config/PipelineConfig.h"
#include "trace/Trace.h"

namespace pipescope {
class TraceStreamWriter;
}

namespace pipescope::ui {

class RunAutosave {
 public:
  static constexpr int kKeepFiles = 20;

  RunAutosave();
  ~RunAutosave();
  RunAutosave(const RunAutosave&) = delete;
  RunAutosave& operator=(const RunAutosave&) = delete;

  static QString defaultFolder();
  void setEnabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  void setFolder(const QString& folder) { folder_ = folder; }
  QString folder() const { return folder_; }

  /// Whether a run of `config` is streamed (autosave on, no batch limit).
  bool covers(const PipelineConfig& config) const { return enabled_ && config.runsUntilStopped(); }
  /// Starts streaming `trace` to a new file; false with a message naming the file.
  bool begin(std::shared_ptr<const Trace> trace, QString* error);
  bool active() const { return writer_ != nullptr; }
  /// The run ended: writes the final chunk and closes the file.
  bool finish(QString* error);
  /// Saves a whole trace (a live run torn down before it ended) to a new file.
  bool saveWhole(const Trace& trace, QString* error);
  /// The file of the current or last autosave; empty if none.
  QString path() const { return path_; }

 private:
  QString newPath() const;
  void prune() const;

  bool enabled_ = true;
  QString folder_;
  QString path_;
  std::unique_ptr<TraceStreamWriter> writer_;
};

}  // namespace pipescope::ui
