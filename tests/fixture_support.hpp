// Reading `# expect: CODE` annotations of closed-world fixtures (on the line, or alone on the line
// before the statement), shared by the rule fixtures and the cross-file fixtures.
#pragma once
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace perflint::testing {

// (line, code) pairs expected by the annotations of a fixture.
inline std::set<std::pair<uint32_t, std::string>> expectations(const std::string& text) {
  std::set<std::pair<uint32_t, std::string>> out;
  std::istringstream in(text);
  std::string line;
  uint32_t n = 0;
  std::vector<std::string> pending;  // from a comment-only line: applies to the next code line
  while (std::getline(in, line)) {
    ++n;
    const auto first = line.find_first_not_of(" \t");
    const bool comment_only = first != std::string::npos && line[first] == '#';
    const bool blank = first == std::string::npos;
    std::vector<std::string> codes;
    const auto at = line.find("# expect:");
    if (at != std::string::npos) {
      std::string rest = line.substr(at + 9);
      std::string code;
      std::istringstream codes_in(rest);
      while (std::getline(codes_in, code, ',')) {
        const auto b = code.find_first_not_of(" \t\r");
        const auto e = code.find_last_not_of(" \t\r");
        if (b != std::string::npos) codes.push_back(code.substr(b, e - b + 1));
      }
    }
    if (comment_only && at == first) {
      pending.insert(pending.end(), codes.begin(), codes.end());
      continue;
    }
    if (blank || comment_only) continue;
    for (const auto& c : pending) out.emplace(n, c);
    pending.clear();
    for (const auto& c : codes) out.emplace(n, c);
  }
  return out;
}

}  // namespace perflint::testing
