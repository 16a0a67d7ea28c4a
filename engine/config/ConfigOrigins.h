#pragma once
// Where each field of a configuration got its value when it was composed from several
// sources (a preset, --config files, command-line options, in that order), so that a
// value error names what the user must edit: the file and its field, or the option.
#include <map>
#include <string>

#include "config/PipelineConfig.h"

namespace pipescope {

struct ConfigOrigin {
  enum class Kind { Default, Preset, File, Option };
  Kind kind = Kind::Default;
  std::string name;  ///< the preset's name, the file's path or the option ("--streams")
};

class ConfigOrigins {
 public:
  /// A preset (or anything else that replaces the whole configuration).
  void setAll(ConfigOrigin origin);
  /// One field, named as in validate() and config files ("batch-samples").
  void set(const std::string& field, ConfigOrigin origin);
  ConfigOrigin of(const std::string& field) const;

  /// The issue as the user should read it, by where its field's value came from:
  ///   config file 'x.json': field 'streams' = 0: allowed 1..32 (...)
  ///   --streams = 0: allowed 1..32 (...)          (an option, a preset or the default)
  /// and, for a contradiction, where the other side came from when it was a file:
  ///   --streams = 4: allowed 1 in blocking mode (...; 'mode' is set in config file 'x.json')
  std::string describe(const ConfigIssue& issue) const;

 private:
  ConfigOrigin all_;
  std::map<std::string, ConfigOrigin> fields_;
};

}  // namespace pipescope
