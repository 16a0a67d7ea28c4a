#pragma once
// Builds a small nlohmann::json value from SAX events, for the parts of a streamed
// file that are read whole (headers, metadata). Caps the number of values so a
// hostile "metadata" section cannot exhaust memory.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace pipescope {

class JsonValueBuilder {
 public:
  explicit JsonValueBuilder(std::uint64_t maxValues = 1'000'000) : maxValues_(maxValues) {}

  /// Begins a value; returns false (does nothing) if already building.
  void reset() {
    root_ = nlohmann::json();
    stack_.clear();
    key_.clear();
    values_ = 0;
  }
  bool building() const { return !stack_.empty(); }
  nlohmann::json& result() { return root_; }

  void scalar(nlohmann::json v) { place(std::move(v)); }
  void key(const std::string& k) { key_ = k; }
  void startContainer(bool object) {
    nlohmann::json* slot = place(object ? nlohmann::json::object() : nlohmann::json::array());
    stack_.push_back(slot);
  }
  /// Returns true when the root value is complete.
  bool endContainer() {
    stack_.pop_back();
    return stack_.empty();
  }

 private:
  nlohmann::json* place(nlohmann::json v) {
    if (++values_ > maxValues_)
      throw std::length_error("more than " + std::to_string(maxValues_) + " values in a metadata section");
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    nlohmann::json& top = *stack_.back();
    if (top.is_object()) {
      nlohmann::json& slot = top[key_];
      slot = std::move(v);
      return &slot;
    }
    top.push_back(std::move(v));
    return &top.back();
  }

  std::uint64_t maxValues_;
  std::uint64_t values_ = 0;
  nlohmann::json root_;
  std::vector<nlohmann::json*> stack_;
  std::string key_;
};

}  // namespace pipescope
