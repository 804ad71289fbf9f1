// "Did you mean ...?": the closest of some candidate words to a mistyped one (case-insensitive
// Levenshtein distance), for config keys, rule codes and names.
#pragma once
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace perflint {

inline size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The closest candidate, if it is close enough to be a plausible typo (within a third of the
// shorter word's length, at least 1); empty otherwise.
template <typename Range>
std::string closest_match(std::string_view word, const Range& candidates) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string w = lower(word);
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (std::string_view c : candidates) {
    const size_t d = edit_distance(w, lower(c));
    if (d < best_d) best_d = d, best = std::string(c);
  }
  const size_t limit = std::max<size_t>(1, std::min(word.size(), best.size()) / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace perflint
