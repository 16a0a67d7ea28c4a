#pragma once
// The dynamic loader's own list of what a child process loaded: run it with
// LD_DEBUG=files and LD_DEBUG_OUTPUT=DIR/ld, and ld.so writes every object it maps
// (at start and through dlopen) to DIR/ld.PID. Used to check that commands which
// never ask for CUDA load none of the CUDA libraries.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pipescope::testing {

/// Sets environment variables for the processes this test starts, restoring them
/// when it goes out of scope (LD_DEBUG set here changes nothing in this process:
/// ld.so reads it only when a program starts).
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::vector<std::pair<std::string, std::string>>& vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name.c_str());
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        ::unsetenv(it->first.c_str());
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

/// A fresh folder for ld.so's log, and what the log says was loaded.
class LoaderLog {
 public:
  explicit LoaderLog(const std::string& dir) : dir_(dir) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~LoaderLog() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  LoaderLog(const LoaderLog&) = delete;
  LoaderLog& operator=(const LoaderLog&) = delete;

  /// The variables that make ld.so write the log here.
  std::vector<std::pair<std::string, std::string>> environment() const {
    return {{"LD_DEBUG", "files"}, {"LD_DEBUG_OUTPUT", (dir_ / "ld").string()}};
  }

  /// File names (no folder) of every object ld.so loaded, from every process logged.
  std::set<std::string> loadedFiles() const {
    std::set<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        // "  1234:\tfile=libz.so.1 [0];  needed by ./pipescope-cli [0]"
        const auto at = line.find("file=");
        if (at == std::string::npos) continue;
        const auto end = line.find_first_of(" \t[;", at + 5);
        files.insert(std::filesystem::path(line.substr(at + 5, end - at - 5)).filename().string());
      }
    }
    return files;
  }

  /// Whether ld.so wrote anything (false would make every "not loaded" check vacuous).
  bool wroteLog() const { return !std::filesystem::is_empty(dir_); }

 private:
  std::filesystem::path dir_;
};

/// The CUDA libraries, and pipescope's CUDA module, among `files`.
inline std::vector<std::string> cudaLibrariesAmong(const std::set<std::string>& files) {
  static const char* const kPrefixes[] = {"libpipescope-cuda", "libcublas", "libcupti", "libnccl",
                                          "libcudart",         "libcuda.",  "libnvrtc", "libnvidia-ml"};
  std::vector<std::string> found;
  for (const std::string& f : files)
    for (const char* p : kPrefixes)
      if (f.rfind(p, 0) == 0) found.push_back(f);
  return found;
}

}  // namespace pipescope::testing
