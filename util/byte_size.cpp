// See byte_size.hpp.
#include "util/byte_size.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace perflint {

namespace {
std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}
}  // namespace

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  std::string s = trim(std::string(text));
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  const std::string number = s.substr(0, i);
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) return std::nullopt;
  std::string unit = trim(s.substr(i));
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kib") scale = 1024.0;
  else if (unit == "m" || unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else return std::nullopt;
  const double value = std::strtod(number.c_str(), nullptr) * scale;
  if (!std::isfinite(value) || value > 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(std::llround(value));
}

std::string format_byte_size(uint64_t bytes) {
  static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  // Exact multiples print without ".0" so that the default limit reads "10 MiB".
  if (v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace perflint
