#include "OptionCatalogue.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Commands.h"

namespace pipescope::cli {

namespace {
HelpRecorder* g_active = nullptr;  // the CLI is single-threaded; one recorder at a time

// Runs `command --help` with std::cout captured.
std::string captureHelp(const Command& c) {
  std::ostringstream text;
  std::streambuf* saved = std::cout.rdbuf(text.rdbuf());
  try {
    c.main({"--help"});
  } catch (...) {
    std::cout.rdbuf(saved);
    throw;
  }
  std::cout.rdbuf(saved);
  return text.str();
}
}  // namespace

HelpRecorder::HelpRecorder() : previous_(g_active) { g_active = this; }
HelpRecorder::~HelpRecorder() { g_active = previous_; }
HelpRecorder* HelpRecorder::active() { return g_active; }

void HelpRecorder::record(const OptionSet& options, const std::string& renderedHelp) {
  tables_.push_back({options.options(), renderedHelp});
}

nlohmann::json optionCatalogue(const std::string& version) {
  auto commands = commandRegistry();
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  nlohmann::json out{{"program", "pipescope-cli"}, {"version", version}, {"commands", nlohmann::json::array()}};
  out["options"] = nlohmann::json::array({
      {{"name", "help"}, {"short", "h"}, {"value", ""}, {"help", "print the help; 'pipescope-cli COMMAND --help' documents a command's options"}, {"group", ""}},
      {{"name", "version"}, {"value", ""}, {"help", "print the version"}, {"group", ""}},
      {{"name", "dump-options"}, {"value", "json"}, {"help", "print every command's options as JSON (what the man page and completions are generated from)"}, {"group", ""}},
  });
  for (const auto& c : commands) {
    HelpRecorder recorder;
    const std::string help = captureHelp(c);
    nlohmann::json options = nlohmann::json::array();
    for (const auto& table : recorder.tables())
      for (const auto& o : table.options)
        options.push_back({{"name", o.name}, {"value", o.valueName}, {"help", o.help}, {"group", o.group}});
    // The text around the option tables: usage line, description before, exit status and examples after.
    std::size_t first = help.size(), last = 0;
    for (const auto& table : recorder.tables()) {
      const std::size_t at = table.renderedHelp.empty() ? std::string::npos : help.find(table.renderedHelp);
      if (at == std::string::npos) continue;
      first = std::min(first, at);
      last = std::max(last, at + table.renderedHelp.size());
    }
    if (first > last) first = last = help.size();
    std::string before = help.substr(0, first);
    std::string usage = before.substr(0, before.find('\n'));
    std::string description = before.size() > usage.size() ? before.substr(usage.size() + 1) : std::string();
    if (usage.rfind("usage: ", 0) == 0) usage.erase(0, 7);
    out["commands"].push_back({{"name", c.name},
                               {"summary", c.summary},
                               {"usage", usage},
                               {"description", description},
                               {"epilogue", help.substr(last)},
                               {"options", options}});
  }
  return out;
}

}  // namespace pipescope::cli
