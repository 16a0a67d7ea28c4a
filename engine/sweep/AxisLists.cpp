#include "sweep/AxisLists.h"

#include <charconv>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace pipescope {

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

/// Items of a comma-separated list; an empty list or an empty item is an error.
std::vector<std::string> items(std::string_view option, std::string_view text, const char* example) {
  std::vector<std::string> out;
  if (trim(text).empty())
    throw std::invalid_argument(std::string(option) + ": give at least one value, e.g. " + example);
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = text.find(',', from);
    const std::string item = trim(text.substr(from, comma == std::string_view::npos ? text.npos : comma - from));
    if (item.empty())
      throw std::invalid_argument(std::string(option) + ": empty value in '" + std::string(text) +
                                  "'; separate values with single commas, e.g. " + example);
    out.push_back(item);
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return out;
}

template <typename E>
std::vector<E> enumList(std::string_view option, std::string_view text, std::optional<E> (*parse)(std::string_view),
                        const std::vector<std::string_view>& names, const char* what, const char* example) {
  std::vector<E> out;
  for (const std::string& item : items(option, text, example)) {
    auto v = parse(item);
    if (!v)
      throw std::invalid_argument(std::string(option) + ": '" + item + "' is not a " + what + "; allowed " +
                                  choices(names));
    out.push_back(*v);
  }
  return out;
}

}  // namespace

std::vector<std::string> parseNameList(std::string_view option, std::string_view text) {
  return items(option, text, "a.json,b.json");
}

std::vector<std::uint64_t> parseSizeList(std::string_view option, std::string_view text) {
  std::vector<std::uint64_t> out;
  for (const std::string& item : items(option, text, "512K,4M,1G")) {
    auto v = parseBytes(item);
    if (!v) throw std::invalid_argument(std::string(option) + ": '" + item + "' is not a size; use e.g. 512K, 4M, 1G");
    if (*v == 0) throw std::invalid_argument(std::string(option) + ": '" + item + "' is zero; a batch holds at least one sample");
    out.push_back(*v);
  }
  return out;
}

std::vector<int> parseCountList(std::string_view option, std::string_view text, int least) {
  std::vector<int> out;
  for (const std::string& item : items(option, text, "1,2,4,8")) {
    int v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < least)
      throw std::invalid_argument(std::string(option) + ": '" + item + "' is not a whole number of at least " +
                                  std::to_string(least) + "; use e.g. " + (least == 0 ? "0,1,4" : "1,2,4,8"));
    out.push_back(v);
  }
  return out;
}

std::vector<HostMemory> parseMemoryList(std::string_view option, std::string_view text) {
  return enumList<HostMemory>(option, text, parseHostMemory, hostMemoryNames(), "host memory type", "pageable,pinned");
}

std::vector<ModelPreset> parseModelList(std::string_view option, std::string_view text) {
  return enumList<ModelPreset>(option, text, parseModelPreset, modelPresetNames(), "model preset", "light,heavy");
}

std::vector<int> batchSamplesFor(std::string_view option, const std::vector<std::uint64_t>& sizes,
                                 std::uint64_t sampleBytes) {
  std::vector<int> out;
  if (sampleBytes == 0) throw std::invalid_argument("sample bytes is 0: set --sample-bytes to at least 4");
  std::uint64_t common = 0;  // the largest sample size that divides every batch size
  for (std::uint64_t size : sizes) common = std::gcd(common, size);
  for (std::uint64_t size : sizes) {
    if (size % sampleBytes != 0)
      throw std::invalid_argument(std::string(option) + ": " + formatBytes(size) +
                                  " is not a whole number of samples of " + formatBytes(sampleBytes) +
                                  " (the sample size); set the sample size to one that divides every batch size, "
                                  "e.g. --sample-bytes " + formatSizeList({common}));
    const std::uint64_t samples = size / sampleBytes;
    if (samples > std::uint64_t(limits::kMaxBatchSamples))
      throw std::invalid_argument(std::string(option) + ": " + formatBytes(size) + " is " + std::to_string(samples) +
                                  " samples of " + formatBytes(sampleBytes) + ", at most " +
                                  std::to_string(limits::kMaxBatchSamples) + ": use a larger --sample-bytes");
    out.push_back(int(samples));
  }
  return out;
}

std::string formatSizeList(const std::vector<std::uint64_t>& sizes) {
  std::string out;
  for (std::uint64_t s : sizes) {
    std::string item;
    if (s % (1ull << 30) == 0) item = std::to_string(s >> 30) + "G";
    else if (s % (1ull << 20) == 0) item = std::to_string(s >> 20) + "M";
    else if (s % (1ull << 10) == 0) item = std::to_string(s >> 10) + "K";
    else item = std::to_string(s);
    out += (out.empty() ? "" : ",") + item;
  }
  return out;
}

std::vector<int> batchSamplesAround(const PipelineConfig& config) {
  std::vector<int> out;
  const std::int64_t s = config.batchSamples;
  for (std::int64_t quarters : {1, 2, 4, 8, 16}) {
    if ((s * quarters) % 4 != 0) continue;
    const std::int64_t samples = s * quarters / 4;
    if (samples < 1 || samples > limits::kMaxBatchSamples) continue;
    if (std::uint64_t(samples) * config.sampleBytes > limits::kMaxBatchBytes) continue;
    out.push_back(int(samples));
  }
  return out;
}

}  // namespace pipescope
