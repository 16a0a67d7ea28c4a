// `pipescope-cli lessons`: the guided lessons, listed or run on the simulator.
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "Options.h"
#include "analysis/AnalysisJson.h"
#include "analysis/LessonRunner.h"
#include "sim/DeviceProfile.h"

namespace pipescope::cli {

namespace {

std::string help(const OptionSet& options) {
  return "usage: pipescope-cli lessons [--run N|ID] [--profile NAME|FILE] [--json]\n"
         "\n"
         "Lists the guided lessons, or runs one on the simulator: what to look for, the question to answer\n"
         "before the run, then the numbers of the runs and whether they show what the lesson claims.\n" +
         options.help() +
         "\nExit status: 0 listed or ran (even when the effect did not show on the chosen profile),\n"
         "1 a run failed, 2 bad option or unknown lesson.\n"
         "\nExamples:\n"
         "  pipescope-cli lessons\n"
         "  pipescope-cli lessons --run 4\n"
         "  pipescope-cli lessons --run issue-order --profile pcie4-desktop --json\n";
}

std::string indent(const std::string& text) { return "  " + wrap(text, 98, 2) + "\n"; }

void printLesson(const Lesson& l) {
  std::cout << "Lesson " << l.number << ": " << l.title << "\n\n" << indent(l.lookFor) << "\n";
  std::cout << "Before you run it: " << l.prediction.question << "\n";
  for (std::size_t i = 0; i < l.prediction.choices.size(); ++i)
    std::cout << "  " << char('a' + i) << ") " << l.prediction.choices[i].text << "\n";
  std::cout << "\nRuns:\n";
  for (const auto& r : l.runs)
    std::cout << "  " << r.label << (r.profile.empty() ? "" : " (profile " + r.profile + ")") << "\n";
}

int lessonsMain(const std::vector<std::string>& args) {
  std::string which, profileName = "h200";
  bool json = false;
  OptionSet options;
  options.group("Options");
  options.value("run", "N|ID", "run lesson N (1-9) or the lesson with this id on the simulator",
                [&](const std::string& v) { which = v; });
  options.value("profile", "NAME|FILE",
                "device profile for the runs that use the current GPU (default h200); legacy runs keep their own",
                [&](const std::string& v) { profileName = v; });
  options.choices(builtinProfileNames());
  options.flag("json", "print the lesson list, or the lesson and its results, as JSON", [&] { json = true; });
  if (wantsHelp(args)) {
    std::cout << help(options);
    return kExitOk;
  }
  auto usage = [](const std::string& m) {
    std::cerr << "pipescope-cli lessons: " << m << "\nSee 'pipescope-cli lessons --help'.\n";
    return kExitUsage;
  };
  try {
    options.parse(args);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  std::string error;
  const auto profile = loadDeviceProfile(profileName, error);
  if (!profile) return usage("--profile = '" + profileName + "': " + error);

  if (which.empty()) {
    if (json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& l : builtinLessons()) list.push_back(lessonToJson(l));
      std::cout << nlohmann::json{{"lessons", list}}.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << "Lessons (run one with 'pipescope-cli lessons --run N'):\n";
    for (const auto& l : builtinLessons())
      std::cout << "  " << l.number << "  " << l.id << std::string(l.id.size() < 18 ? 18 - l.id.size() : 1, ' ')
                << l.title << "\n";
    return kExitOk;
  }
  const Lesson* lesson = findLesson(which);
  if (!lesson) return usage("--run = '" + which + "': no such lesson; 'pipescope-cli lessons' lists them (1-9)");
  const LessonOutcome out = runLesson(*lesson, *profile);
  if (json) {
    std::cout << lessonOutcomeToJson(*lesson, out).dump(2) << "\n";
  } else {
    printLesson(*lesson);
    if (out.ok()) {
      std::cout << "\nNumbers afterwards:\n" << out.numbers;
      const int answer = lesson->prediction.answer;
      std::cout << "\nAnswer: " << char('a' + answer) << ") " << lesson->prediction.choices[std::size_t(answer)].text;
      if (out.observedChoice >= 0 && out.observedChoice != answer)
        std::cout << "; on this profile the numbers say " << char('a' + out.observedChoice) << ") "
                  << lesson->prediction.choices[std::size_t(out.observedChoice)].text;
      std::cout << "\n\nWhat the lesson claims:\n";
      for (const auto& c : out.checks) std::cout << "  [" << (c.holds ? "yes" : "NO ") << "] " << c.claim << "\n";
      if (!out.allHold())
        std::cout << "\nNot every claim holds on profile '" << profile->name
                  << "': the effect depends on the device, which is a lesson too.\n";
    }
  }
  if (!out.ok()) {
    std::cerr << "pipescope-cli lessons: " << out.error << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

const bool registered = registerCommand(
    {"lessons", "list the guided lessons or run one on the simulator, with the numbers afterwards", lessonsMain});

}  // namespace

}  // namespace pipescope::cli
