#include "app/AppSettings.h"

#include <QSettings>
#include <nlohmann/json.hpp>

#include "config/ConfigJson.h"

namespace pipescope::ui {

AppSettings AppSettings::load(QSettings& s) {
  AppSettings a;
  // A configuration saved by another version may not parse (renamed field); the
  // defaults are then the right answer, not an error dialog at startup.
  if (const QString json = s.value("run/config").toString(); !json.isEmpty()) {
    try {
      a.config = configFromJson(nlohmann::json::parse(json.toStdString()));
    } catch (const std::exception&) {
      a.config.reset();
    }
  }
  a.preset = s.value("run/preset").toString();
  if (s.contains("backend/choice")) {
    BackendOptions b;
    if (auto c = parseBackendChoice(s.value("backend/choice").toString().toStdString())) b.choice = *c;
    b.simulatorProfile = s.value("backend/profile", QString::fromStdString(b.simulatorProfile)).toString().toStdString();
    b.simulatorSlowdown = s.value("backend/slowdown", b.simulatorSlowdown).toDouble();
    a.backend = b;
  }
  a.grouping = s.value("view/grouping", -1).toInt();
  a.theme = s.value("view/theme").toString();
  return a;
}

void AppSettings::save(QSettings& s) const {
  if (config) s.setValue("run/config", QString::fromStdString(configToJson(*config).dump()));
  s.setValue("run/preset", preset);
  if (backend) {
    s.setValue("backend/choice", QString::fromUtf8(toString(backend->choice).data()));
    s.setValue("backend/profile", QString::fromStdString(backend->simulatorProfile));
    s.setValue("backend/slowdown", backend->simulatorSlowdown);
  }
  if (grouping >= 0) s.setValue("view/grouping", grouping);
  if (!theme.isEmpty()) s.setValue("view/theme", theme);
}

}  // namespace pipescope::ui
