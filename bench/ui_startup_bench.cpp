// Time from launching `pipescope` to its first painted frame (the main window and
// all its docks drawn and flushed), offscreen. Each repetition spawns
// `pipescope --measure-startup`, which prints CLOCK_MONOTONIC once the first frame
// is done and exits; the time is that instant minus the instant before the spawn.
// Same-run references: spawning /bin/true (the cost of process creation itself)
// and `pipescope --version` (loading the app and its Qt libraries, creating the
// QApplication, no window).
//
// The app is found next to this program (../app/gui/pipescope) or through
// PIPESCOPE_APP. Settings are isolated in a temporary XDG_CONFIG_HOME.
//
// Run: build/release/bench/ui_startup_bench --benchmark_repetitions=15
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

std::string appPath() {
  if (const char* p = std::getenv("PIPESCOPE_APP")) return p;
  const auto self = std::filesystem::read_symlink("/proc/self/exe");
  return (self.parent_path() / ".." / "app" / "gui" / "pipescope").lexically_normal().string();
}

struct Spawned {
  std::int64_t spawnNs = 0, exitNs = 0;
  std::string out;
  int status = -1;
};

// Runs argv with stdout captured; the child's stderr is discarded.
Spawned spawnAndWait(const std::vector<std::string>& args) {
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Spawned s;
  pid_t pid = 0;
  s.spawnNs = monotonicNs();
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipeFds[1]);
  if (rc != 0) {
    close(pipeFds[0]);
    return s;
  }
  char buf[4096];
  ssize_t n = 0;
  while ((n = read(pipeFds[0], buf, sizeof buf)) > 0) s.out.append(buf, std::size_t(n));
  close(pipeFds[0]);
  waitpid(pid, &s.status, 0);
  s.exitNs = monotonicNs();
  return s;
}

void prepareEnvironment() {
  static bool done = false;
  if (done) return;
  done = true;
  setenv("QT_QPA_PLATFORM", "offscreen", 0);
  const auto dir = std::filesystem::temp_directory_path() / "pipescope-startup-bench";
  std::filesystem::create_directories(dir);
  setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
}

void BM_LaunchToFirstFrame(benchmark::State& state) {
  prepareEnvironment();
  const std::string app = appPath();
  for (auto _ : state) {
    const Spawned s = spawnAndWait({app, "--measure-startup"});
    const auto pos = s.out.find("first-frame-monotonic-ns ");
    if (s.status != 0 || pos == std::string::npos) {
      state.SkipWithError(("`" + app + " --measure-startup` failed; build the pipescope target or set PIPESCOPE_APP").c_str());
      return;
    }
    const std::int64_t frameNs = std::stoll(s.out.substr(pos + 25));
    state.SetIterationTime(double(frameNs - s.spawnNs) / 1e9);
  }
}
BENCHMARK(BM_LaunchToFirstFrame)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_ReferenceSpawnTrue(benchmark::State& state) {
  for (auto _ : state) {
    const Spawned s = spawnAndWait({"/bin/true"});
    state.SetIterationTime(double(s.exitNs - s.spawnNs) / 1e9);
  }
}
BENCHMARK(BM_ReferenceSpawnTrue)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_ReferenceAppVersion(benchmark::State& state) {
  prepareEnvironment();
  const std::string app = appPath();
  for (auto _ : state) {
    const Spawned s = spawnAndWait({app, "--version"});
    state.SetIterationTime(double(s.exitNs - s.spawnNs) / 1e9);
  }
}
BENCHMARK(BM_ReferenceAppVersion)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
