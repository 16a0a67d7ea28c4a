#include "sim/MachineProfiles.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

#include "io/OutputFile.h"

namespace pipescope {

namespace {

namespace fs = std::filesystem;

std::string slug(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += char(std::tolower(u));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string thisHost() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

MachineContext MachineContext::current() {
  MachineContext m;
  m.host = thisHost();
  const char* xdg = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  // The XDG base directory rules: a relative XDG_DATA_HOME is ignored.
  if (xdg && xdg[0] == '/')
    m.folder = (fs::path(xdg) / "pipescope" / "profiles").string();
  else if (home && home[0] != '\0')
    m.folder = (fs::path(home) / ".local" / "share" / "pipescope" / "profiles").string();
  return m;
}

std::string machineProfileName(const std::string& deviceName, const std::string& host) {
  std::string gpu = slug(deviceName);
  if (gpu.rfind("nvidia-", 0) == 0) gpu.erase(0, 7);
  const std::string h = slug(host);
  return (gpu.empty() ? "gpu" : gpu) + "@" + (h.empty() ? "localhost" : h);
}

std::string machineProfilePath(const MachineContext& machine, const std::string& deviceName) {
  if (machine.folder.empty()) return {};
  return (fs::path(machine.folder) / (machineProfileName(deviceName, machine.host) + ".json")).string();
}

MachineProfileLookup findMachineProfile(const MachineContext& machine, const std::string& deviceName) {
  MachineProfileLookup r;
  if (machine.folder.empty()) {
    r.status = MachineProfileLookup::Status::NoFolder;
    r.message = "no data folder to keep calibrations in (set HOME or XDG_DATA_HOME)";
    return r;
  }
  r.path = machineProfilePath(machine, deviceName);
  std::error_code ec;
  if (!fs::exists(r.path, ec)) {
    r.status = MachineProfileLookup::Status::NotFound;
    return r;
  }
  const auto damaged = [&](const std::string& why) {
    r.status = MachineProfileLookup::Status::Damaged;
    r.message = "this machine's calibration " + r.path + " cannot be used (" + why +
                "): calibrate again ('pipescope-cli calibrate', or Run > Calibrate this GPU in the app), which "
                "replaces it";
    return r;
  };
  std::ifstream in(r.path);
  if (!in) return damaged("it cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  DeviceProfile p;
  try {
    p = profileFromJson(nlohmann::json::parse(text.str()));
  } catch (const nlohmann::json::parse_error& e) {
    return damaged(std::string("not valid JSON: ") + e.what());
  } catch (const std::exception& e) {
    return damaged(e.what());
  }
  if (p.deviceName != deviceName)
    return damaged("it describes '" + p.deviceName + "', not this machine's '" + deviceName + "'");
  r.status = MachineProfileLookup::Status::Found;
  r.profile = std::move(p);
  return r;
}

std::string saveMachineProfile(const MachineContext& machine, DeviceProfile profile) {
  if (machine.folder.empty())
    throw std::runtime_error("no data folder to keep the calibration in (set HOME or XDG_DATA_HOME), or give --out");
  std::error_code ec;
  fs::create_directories(machine.folder, ec);
  if (ec) throw std::runtime_error("cannot create the profiles folder " + machine.folder + ": " + ec.message());
  profile.name = machineProfileName(profile.deviceName, machine.host);
  const std::string path = machineProfilePath(machine, profile.deviceName);
  writeOutputFile(path, [&](std::ostream& out) { out << profileToJson(profile).dump(2) << "\n"; });
  return path;
}

std::vector<std::string> machineProfileNames(const MachineContext& machine) {
  std::vector<std::string> names;
  std::error_code ec;
  if (machine.folder.empty() || !fs::is_directory(machine.folder, ec)) return names;
  for (const auto& e : fs::directory_iterator(machine.folder, ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pipescope
