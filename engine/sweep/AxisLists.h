#pragma once
// Comma-separated grid axes as users type them ("1M,4M,16M", "1,2,4,8",
// "pageable,pinned"), shared by the command line and the app's sweep view. Each
// parser throws std::invalid_argument with a message naming the option, the bad
// item and an example of what works.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/PipelineConfig.h"

namespace pipescope {

/// "1M,4M" -> {1 MiB, 4 MiB}; option is the name shown in messages ("--batch").
std::vector<std::uint64_t> parseSizeList(std::string_view option, std::string_view text);
/// Whole numbers of at least `least` (1: counts of streams or GPUs; 0: buckets).
std::vector<int> parseCountList(std::string_view option, std::string_view text, int least = 1);
std::vector<HostMemory> parseMemoryList(std::string_view option, std::string_view text);
std::vector<ModelPreset> parseModelList(std::string_view option, std::string_view text);
/// "a.json,b.json" -> its items, trimmed (file or profile names).
std::vector<std::string> parseNameList(std::string_view option, std::string_view text);

/// Batch sizes in bytes as samples per batch of `sampleBytes` each; every size must be
/// a whole number of samples.
std::vector<int> batchSamplesFor(std::string_view option, const std::vector<std::uint64_t>& sizes,
                                 std::uint64_t sampleBytes);

/// "1 MiB,4 MiB" style round trip for the UI: sizes as the shortest unit spelling ("1M,4M").
/// Batch sizes around a configuration's own, in samples: x1/4, x1/2, x1, x2, x4 of its
/// batchSamples, those that are whole and within the limits (the what-if of a derived
/// configuration, `sweep --config` without --batch).
std::vector<int> batchSamplesAround(const PipelineConfig& config);

std::string formatSizeList(const std::vector<std::uint64_t>& sizes);

}  // namespace pipescope
