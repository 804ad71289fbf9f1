// Byte sizes as people write and read them (--max-file-size, max-file-size in the config, the size
// notices and the probe's memory figures).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perflint {

// "10485760", "512KiB", "10MiB", "1.5 GiB", "10MB" (SI), "64k" -> bytes; nullopt if malformed.
std::optional<uint64_t> parse_byte_size(std::string_view text);
// Bytes for humans, as the size notice prints them: "12.3 MiB", "10 MiB", "900 bytes".
std::string format_byte_size(uint64_t bytes);

}  // namespace perflint
