#pragma once
// The host CPU's last-level cache, which decides whether a pageable copy's host
// buffer is still in cache when it is copied again (DeviceProfile::hostCacheBytes).
#include <cstdint>
#include <string>

namespace pipescope {

/// Bytes of the largest cache level Linux describes under
/// /sys/devices/system/cpu/cpu0/cache (falling back to sysconf's L3 size); 0 when
/// neither says.
std::uint64_t hostLastLevelCacheBytes();

/// Parses a sysfs cache size ("32768K", "1M", "512"); 0 for anything else.
std::uint64_t parseCacheSize(const std::string& text);

}  // namespace pipescope
