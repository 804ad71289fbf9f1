// Small string helpers shared by the model, the rules and the probe.
#pragma once
#include <cctype>
#include <string_view>

namespace perflint {

// "torch.utils.data.DataLoader" -> "DataLoader"
inline std::string_view last_component(std::string_view dotted) {
  const auto dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// Case-insensitive search; `needle` is given in lower case.
// ASCII only: the needles are ASCII, and std::tolower (a locale look-up per byte) was a visible
// share of a lint.
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }
inline bool icontains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  if (needle.empty()) return true;
  const char first = needle[0];
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (ascii_lower(hay[i]) != first) continue;
    size_t k = 1;
    while (k < needle.size() && ascii_lower(hay[i + k]) == needle[k]) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

}  // namespace perflint
