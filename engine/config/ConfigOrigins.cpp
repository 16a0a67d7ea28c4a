#include "config/ConfigOrigins.h"

namespace pipescope {

void ConfigOrigins::setAll(ConfigOrigin origin) {
  all_ = std::move(origin);
  fields_.clear();
}

void ConfigOrigins::set(const std::string& field, ConfigOrigin origin) { fields_[field] = std::move(origin); }

ConfigOrigin ConfigOrigins::of(const std::string& field) const {
  const auto it = fields_.find(field);
  return it == fields_.end() ? all_ : it->second;
}

std::string ConfigOrigins::describe(const ConfigIssue& issue) const {
  const ConfigOrigin origin = of(issue.field);
  std::string text =
      origin.kind == ConfigOrigin::Kind::File
          ? "config file '" + origin.name + "': field '" + issue.field + "' = " + issue.value + ": allowed " +
                issue.allowed + " (" + issue.reason
          : "--" + issue.field + " = " + issue.value + ": allowed " + issue.allowed + " (" + issue.reason;
  for (const std::string& other : issue.related) {
    const ConfigOrigin o = of(other);
    if (o.kind == ConfigOrigin::Kind::File && (origin.kind != o.kind || origin.name != o.name))
      text += "; '" + other + "' is set in config file '" + o.name + "'";
  }
  return text + ")";
}

}  // namespace pipescope
