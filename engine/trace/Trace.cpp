#include "trace/Trace.h"

#include <stdexcept>

namespace pipescope {

std::string_view toString(OpKind kind) {
  switch (kind) {
    case OpKind::Preprocess: return "preprocess";
    case OpKind::CopyH2D: return "H2D copy";
    case OpKind::Kernel: return "kernel";
    case OpKind::CopyD2H: return "D2H copy";
    case OpKind::Postprocess: return "postprocess";
    case OpKind::HostSync: return "host sync";
    case OpKind::ApiCall: return "API call";
    case OpKind::Memset: return "memset";
    case OpKind::Annotation: return "annotation";
    case OpKind::PeerCopy: return "peer copy";
    case OpKind::Collective: return "collective";
  }
  return "?";
}

std::string_view toString(LaneKind kind) {
  switch (kind) {
    case LaneKind::HostSubmit: return "host-submit";
    case LaneKind::HostWorker: return "host-worker";
    case LaneKind::Stream: return "stream";
    case LaneKind::CopyEngineH2D: return "copy-engine-h2d";
    case LaneKind::CopyEngineD2H: return "copy-engine-d2h";
    case LaneKind::CopyEngine: return "copy-engine";
    case LaneKind::ComputeEngine: return "compute-engine";
    case LaneKind::HostOther: return "host-other";
    case LaneKind::PeerLink: return "peer-link";
    case LaneKind::Collective: return "collective";
  }
  return "?";
}

std::string_view toString(RunState s) {
  switch (s) {
    case RunState::NotStarted: return "not started";
    case RunState::Running: return "running";
    case RunState::Finished: return "finished";
    case RunState::Stopped: return "stopped";
    case RunState::Failed: return "failed";
  }
  return "?";
}

std::string DeviceInfo::summary() const {
  if (backend == "simulator") return "Simulator: " + (profile.empty() ? name : profile);
  std::string s = name.empty() ? backend : name;
  if (pcieGeneration > 0) s += " (PCIe Gen" + std::to_string(pcieGeneration) + " x" + std::to_string(pcieWidth) + ")";
  return s;
}

void Trace::setConfig(const PipelineConfig& config) {
  std::lock_guard lock(mutex_);
  configs_.assign(1, ConfigChange{0, config});
}

void Trace::addConfigChange(std::int32_t firstBatch, const PipelineConfig& config) {
  std::lock_guard lock(mutex_);
  configs_.push_back(ConfigChange{firstBatch, config});
}

PipelineConfig Trace::config() const {
  std::lock_guard lock(mutex_);
  return configs_.empty() ? PipelineConfig{} : configs_.front().config;
}

std::vector<ConfigChange> Trace::configHistory() const {
  std::lock_guard lock(mutex_);
  return configs_;
}

void Trace::setDevice(const DeviceInfo& device) {
  std::lock_guard lock(mutex_);
  devices_.front() = device;
}

DeviceInfo Trace::device() const {
  std::lock_guard lock(mutex_);
  return devices_.front();
}

void Trace::setDevices(std::vector<DeviceInfo> devices) {
  if (devices.empty()) throw std::invalid_argument("a trace describes at least one device");
  std::lock_guard lock(mutex_);
  devices_ = std::move(devices);
}

std::vector<DeviceInfo> Trace::devices() const {
  std::lock_guard lock(mutex_);
  return devices_;
}

std::size_t Trace::deviceCount() const {
  std::lock_guard lock(mutex_);
  return devices_.size();
}

std::uint16_t Trace::lane(LaneKind kind, int index, const std::string& name) {
  return lane(kind, index, defaultLaneDevice(kind), name);
}

std::uint16_t Trace::lane(LaneKind kind, int index, int device, const std::string& name) {
  std::lock_guard lock(mutex_);
  for (const auto& l : lanes_)
    if (l.kind == kind && l.index == index && l.device == device) return l.id;
  if (lanes_.size() >= kNoLane) throw std::length_error("too many lanes in one trace (at most 65534)");
  const auto id = static_cast<std::uint16_t>(lanes_.size());
  lanes_.push_back(Lane{id, kind, name, index, device});
  return id;
}

std::vector<Lane> Trace::lanes() const {
  std::lock_guard lock(mutex_);
  return lanes_;
}

std::size_t Trace::laneCount() const {
  std::lock_guard lock(mutex_);
  return lanes_.size();
}

std::uint16_t Trace::internName(const std::string& name) {
  if (name.empty()) return 0;
  std::lock_guard lock(mutex_);
  if (auto it = nameIndex_.find(name); it != nameIndex_.end()) return it->second;
  if (names_.size() >= 0xFFFF) return 0;  // table full: fall back to the kind's name
  names_.push_back(name);
  const auto id = static_cast<std::uint16_t>(names_.size() - 1);
  nameIndex_.emplace(name, id);
  return id;
}

std::vector<std::string> Trace::names() const {
  std::lock_guard lock(mutex_);
  return names_;
}

std::string Trace::opName(const Op& op) const {
  {
    std::lock_guard lock(mutex_);
    if (op.name != 0 && op.name < names_.size()) return names_[op.name];
  }
  return std::string(toString(op.kind));
}

void Trace::setOutcome(RunOutcome outcome) {
  std::lock_guard lock(mutex_);
  outcome_ = std::move(outcome);
}

RunOutcome Trace::outcome() const {
  std::lock_guard lock(mutex_);
  return outcome_;
}

void Trace::setCompletedBatches(std::int64_t n) {
  std::lock_guard lock(mutex_);
  completedBatches_ = n;
}

std::int64_t Trace::completedBatches() const {
  std::lock_guard lock(mutex_);
  return completedBatches_;
}

void Trace::setIterations(IterationInfo info) {
  std::lock_guard lock(mutex_);
  iterations_ = std::move(info);
}

IterationInfo Trace::iterations() const {
  std::lock_guard lock(mutex_);
  return iterations_;
}

void Trace::setRanks(std::vector<RankInfo> ranks) {
  std::lock_guard lock(mutex_);
  ranks_ = std::move(ranks);
}

std::vector<RankInfo> Trace::ranks() const {
  std::lock_guard lock(mutex_);
  return ranks_;
}

}  // namespace pipescope
