// Startup targets (docs/performance.md, "Startup"), each against a reference program
// built by this project and launched alternately with it in the same run:
//
// - `pipescope-cli --version`: wall time from spawn to exit, and the child's max RSS,
//   against startup_reference_hello (a C++ hello world: same compiler, flags and
//   standard library). Target: median at most 20 ms above the reference, max RSS at
//   most 30 MB.
// - `pipescope --measure-startup` (offscreen, empty settings): spawn to first painted
//   frame and RSS at that frame, against startup_reference_qt_window (a bare
//   QApplication showing an empty QMainWindow, reporting its frame the same way).
//   Target: median at most 60 ms above the reference, RSS at most 120 MB.
//
// Usage: startup_bench [REPS]   (default 15; prints a markdown table; exit status 1
// when a target is missed). CPU times are printed beside the wall times: on a loaded
// machine a launch spends most of its wall time waiting for a core. The programs' paths are compiled in (the build
// tree); PIPESCOPE_CLI / PIPESCOPE_APP override them.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {

std::int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Launch {
  bool ok = false;
  double exitMs = 0;      ///< spawn to exit
  double exitCpuMs = 0;   ///< the child's CPU time, all threads, user + system (wait4)
  double maxRssMb = 0;    ///< the child's peak resident memory (wait4)
  double frameMs = 0;     ///< spawn to the printed first frame (0 when none printed)
  double frameCpuMs = 0;  ///< CPU time the child printed at its first frame
  double frameRssMb = 0;  ///< resident memory the child printed at its first frame
};

double ms(const timeval& t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; }

long long valueAfter(const std::string& out, const std::string& key) {
  const auto at = out.find(key + " ");
  return at == std::string::npos ? -1 : std::stoll(out.substr(at + key.size() + 1));
}

/// Runs argv to completion with stdout captured and stderr discarded.
Launch launch(const std::vector<std::string>& args) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const std::int64_t spawnNs = monotonicNs();
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  Launch l;
  if (rc != 0) {
    close(fds[0]);
    return l;
  }
  std::string out;
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, std::size_t(n));
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  l.exitMs = double(monotonicNs() - spawnNs) / 1e6;
  l.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  l.maxRssMb = double(usage.ru_maxrss) / 1024.0;
  l.exitCpuMs = ms(usage.ru_utime) + ms(usage.ru_stime);
  if (const long long frame = valueAfter(out, "first-frame-monotonic-ns"); frame > 0)
    l.frameMs = double(frame - spawnNs) / 1e6;
  if (const long long kb = valueAfter(out, "rss-at-first-frame-kb"); kb > 0) l.frameRssMb = double(kb) / 1024.0;
  if (const auto at = out.find("cpu-at-first-frame-ms "); at != std::string::npos)
    l.frameCpuMs = std::stod(out.substr(at + 22));
  return l;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double maxOf(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

std::string pathFrom(const char* env, const char* builtIn) {
  const char* v = std::getenv(env);
  return v && *v ? v : builtIn;
}

struct Series {
  std::vector<double> ms, cpuMs, rssMb;
};

/// Launches program and reference alternately `reps` times (after one warm-up each,
/// so both start with the same files in the page cache).
bool measurePair(const std::vector<std::string>& program, const std::vector<std::string>& reference, int reps,
                 bool firstFrame, Series& p, Series& r) {
  for (int i = -1; i < reps; ++i) {
    for (int which = 0; which < 2; ++which) {
      const auto& args = which == 0 ? reference : program;
      const Launch l = launch(args);
      if (!l.ok || (firstFrame && l.frameMs <= 0)) {
        std::fprintf(stderr, "`%s` failed (build it, or set PIPESCOPE_CLI / PIPESCOPE_APP)\n", args[0].c_str());
        return false;
      }
      if (i < 0) continue;
      Series& s = which == 0 ? r : p;
      s.ms.push_back(firstFrame ? l.frameMs : l.exitMs);
      s.cpuMs.push_back(firstFrame ? l.frameCpuMs : l.exitCpuMs);
      s.rssMb.push_back(firstFrame ? l.frameRssMb : l.maxRssMb);
    }
  }
  return true;
}

/// One row: wall time (the target) and CPU time (what the program itself did: on a
/// loaded machine the wall time is mostly waiting for a core), each with the
/// reference's and the difference; and memory.
bool report(const char* what, const char* reference, const char* rssWhat, const Series& p, const Series& r,
            double maxAboveMs, double maxRssMb) {
  const double above = median(p.ms) - median(r.ms), cpuAbove = median(p.cpuMs) - median(r.cpuMs);
  const double rss = maxOf(p.rssMb);
  const bool timeOk = above <= maxAboveMs, rssOk = rss <= maxRssMb;
  std::printf(
      "| %s | %s | %.1f ms | %.1f ms | **%+.1f ms** (<= %.0f: %s) | %.1f ms | %.1f ms | %+.1f ms | %.1f MB | "
      "%.1f MB | %s <= %.0f MB: %s |\n",
      what, reference, median(p.ms), median(r.ms), above, maxAboveMs, timeOk ? "met" : "MISSED", median(p.cpuMs),
      median(r.cpuMs), cpuAbove, rss, maxOf(r.rssMb), rssWhat, maxRssMb, rssOk ? "met" : "MISSED");
  return timeOk && rssOk;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  const std::string cli = pathFrom("PIPESCOPE_CLI", PIPESCOPE_CLI_PATH);
  // Offscreen and empty settings: the same first frame on every machine.
  setenv("QT_QPA_PLATFORM", "offscreen", 1);
  const auto config = std::filesystem::temp_directory_path() / "pipescope-startup-bench";
  std::filesystem::create_directories(config);
  setenv("XDG_CONFIG_HOME", config.c_str(), 1);

  std::printf(
      "startup, median of %d launches each, program and reference alternating; memory: the largest\n"
      "of the launches (max RSS over the whole run for the CLI, RSS at the first frame for the app)\n\n",
      reps);
  std::printf(
      "| program | reference | wall | reference wall | above | CPU | reference CPU | above | memory | "
      "reference memory | target |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
  bool ok = true;
  Series p, r;
  if (!measurePair({cli, "--version"}, {PIPESCOPE_HELLO_PATH}, reps, false, p, r)) return 2;
  ok &= report("`pipescope-cli --version`, spawn to exit", "C++ hello world", "max RSS", p, r, 20, 30);
#ifdef PIPESCOPE_APP_PATH
  const std::string app = pathFrom("PIPESCOPE_APP", PIPESCOPE_APP_PATH);
  p = {};
  r = {};
  if (!measurePair({app, "--measure-startup"}, {PIPESCOPE_QT_WINDOW_PATH}, reps, true, p, r)) return 2;
  ok &= report("`pipescope`, spawn to first painted frame", "empty QMainWindow", "RSS at first frame", p, r, 60, 120);
#endif
  std::fflush(stdout);
  return ok ? 0 : 1;
}
