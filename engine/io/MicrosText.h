#pragma once
// Chrome traces give times as JSON numbers in microseconds, often with a fraction
// ("4458251780891.005"). A double would lose nanoseconds at such magnitudes, so the
// number's text is converted exactly.
#include <cstdint>
#include <optional>
#include <string_view>

namespace pipescope {

/// Largest |time| accepted, in ns (about 31 years).
inline constexpr std::int64_t kMaxAbsTimeNs = 1'000'000'000'000'000'000;

/// Microseconds as JSON number text -> nanoseconds, rounded to nearest; nullopt if
/// the text is not a number or |value| exceeds kMaxAbsTimeNs.
std::optional<std::int64_t> microsTextToNs(std::string_view text);

}  // namespace pipescope
