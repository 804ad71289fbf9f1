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
inline bool icontains(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    bool ok = true;
    for (size_t k = 0; k < needle.size() && ok; ++k)
      ok = std::tolower(static_cast<unsigned char>(hay[i + k])) == needle[k];
    if (ok) return true;
  }
  return false;
}

}  // namespace perflint
