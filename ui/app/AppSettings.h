#pragma once
// What the app remembers between launches (QSettings under the organisation and
// application names main() sets): the last configuration, preset, backend and lane
// grouping. Window geometry and dock state are saved by MainWindow itself.
#include <QString>
#include <optional>

#include "backend/Backend.h"
#include "config/PipelineConfig.h"

class QSettings;

namespace pipescope::ui {

struct AppSettings {
  std::optional<PipelineConfig> config;   ///< nullopt: never saved, or unreadable
  QString preset;                         ///< empty: custom
  std::optional<BackendOptions> backend;
  int grouping = -1;                      ///< LaneGrouping as int; -1 = not saved
  QString theme;                          ///< "light", "dark"; empty = not saved

  static AppSettings load(QSettings& settings);
  void save(QSettings& settings) const;
};

}  // namespace pipescope::ui
