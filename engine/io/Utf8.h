#pragma once
// UTF-8 validation for text the JSON readers keep: RFC 3629 (no overlong forms, no
// surrogates, nothing above U+10FFFF), as nlohmann's JSON parser checks it.
#include <string_view>

namespace pipescope {

/// True when `text` is well-formed UTF-8. ASCII runs are checked eight bytes at a time.
bool isValidUtf8(std::string_view text);

}  // namespace pipescope
