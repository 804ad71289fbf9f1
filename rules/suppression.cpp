// Suppression comments: parsing `# perflint: ignore[...]`, `# perflint: ignore-file[...]` and
// `# noqa[: codes]` out of comment tokens, and removing the findings they cover.
#include "rules/suppression.hpp"

#include <algorithm>
#include <cctype>

#include "rules/registry.hpp"
#include "rules/rule.hpp"

namespace perflint {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
char upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return upper(x) == upper(y); });
}
bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

size_t skip_spaces(std::string_view s, size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// A word boundary after a keyword, so that `# noqaXYZ` or `# perflint: ignored` are not directives.
bool ends_word(std::string_view s, size_t i) {
  return i >= s.size() || !(std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '-');
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

struct Directive {
  bool file_level = false;
  bool all = false;
  std::vector<std::string> codes;
  size_t end = 0;  // offset in the comment just past the directive
};

// `perflint: ignore[...]` / `perflint: ignore-file[...]`, starting at s[i] ("perflint").
std::optional<Directive> parse_perflint(std::string_view s, size_t i) {
  if (!istarts_with(s.substr(i), "perflint")) return std::nullopt;
  i = skip_spaces(s, i + 8);
  if (i >= s.size() || s[i] != ':') return std::nullopt;
  i = skip_spaces(s, i + 1);
  Directive d;
  if (istarts_with(s.substr(i), "ignore-file")) {
    d.file_level = true;
    i += 11;
  } else if (istarts_with(s.substr(i), "ignore")) {
    i += 6;
  } else {
    return std::nullopt;
  }
  if (!ends_word(s, i)) return std::nullopt;
  const size_t after = skip_spaces(s, i);
  if (after < s.size() && s[after] == '[') {
    const size_t close = s.find(']', after);
    // An unclosed list is a typo, not a blanket suppression: it would hide far more than meant.
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view list = s.substr(after + 1, close - after - 1);
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string_view::npos) comma = list.size();
      if (std::string item = trim(list.substr(start, comma - start)); !item.empty()) d.codes.push_back(std::move(item));
      start = comma + 1;
    }
    d.end = close + 1;
    if (d.codes.empty()) d.all = true;
  } else {
    d.all = true;
    d.end = i;
  }
  return d;
}

// flake8's form: `noqa`, `noqa: X1`, `noqa:X1,Y2 Z3`; only PFL codes are ours. A noqa that lists
// only other tools' codes yields nothing (it must not silence us).
std::optional<Directive> parse_noqa(std::string_view s, size_t i) {
  if (!istarts_with(s.substr(i), "noqa")) return std::nullopt;
  i += 4;
  Directive d;
  d.end = i;
  // `# noqa : PFL201` is a spaced-out code list, not a blanket noqa that would hide everything.
  if (const size_t colon = skip_spaces(s, i); colon < s.size() && s[colon] == ':') {
    size_t j = colon + 1;
    bool any_code = false;
    for (;;) {
      size_t k = j;
      while (k < s.size() && (is_space(s[k]) || s[k] == ',')) ++k;
      // A code is a word of letters then at least one digit ("E501", "PFL201"); a mistyped one
      // ("PFL2O1") is still one word, so that it is reported as unknown rather than read as a
      // blanket noqa that would hide every finding on the line.
      size_t w = k;
      while (w < s.size() && (std::isalnum(static_cast<unsigned char>(s[w])) != 0)) ++w;
      const std::string_view word = s.substr(k, w - k);
      const bool code_like = !word.empty() && is_alpha(word.front()) &&
                             std::any_of(word.begin(), word.end(), [](char c) { return is_digit(c); });
      if (!code_like || !ends_word(s, w)) break;
      any_code = true;
      if (istarts_with(word, "PFL")) d.codes.emplace_back(word);
      d.end = w;
      j = w;
    }
    if (any_code) {
      if (d.codes.empty()) return std::nullopt;
      return d;
    }
    // `# noqa:` followed by no code reads as a bare noqa, as in flake8.
    d.all = true;
    return d;
  }
  if (!ends_word(s, i)) return std::nullopt;
  d.all = true;
  return d;
}

bool selector_hits(std::string_view sel, const RuleInfo& info) {
  if (iequals(sel, "ALL") || iequals(sel, info.code) || iequals(sel, info.name)) return true;
  return istarts_with(sel, "PFL") && istarts_with(info.code, sel);
}

bool covers(const Suppression& s, const Finding& f) {
  if (s.all) return true;
  if (!f.rule) return false;
  return std::any_of(s.codes.begin(), s.codes.end(), [&](const std::string& c) { return selector_hits(c, *f.rule); });
}

}  // namespace

std::vector<Suppression> parse_suppressions(const SourceFile& source,
                                            const std::vector<std::pair<uint32_t, uint32_t>>& comments) {
  std::vector<Suppression> out;
  for (const auto& [start, end] : comments) {
    const std::string_view text = source.slice(start, end);
    // Every '#' starts a candidate, so `# type: ignore  # noqa: PFL201` is found.
    for (size_t hash = text.find('#'); hash != std::string_view::npos; hash = text.find('#', hash + 1)) {
      const size_t i = skip_spaces(text, hash + 1);
      std::optional<Directive> d = parse_perflint(text, i);
      bool noqa = false;
      if (!d) d = parse_noqa(text, i), noqa = true;
      if (!d) continue;
      Suppression s;
      s.noqa = noqa;
      s.file_level = d->file_level;
      s.all = d->all;
      s.codes = std::move(d->codes);
      const uint32_t b = start + static_cast<uint32_t>(hash);
      const uint32_t e = start + static_cast<uint32_t>(d->end);
      s.span = Span{b, e, source.position(b), source.position(e)};
      s.line = s.span.start.line;
      out.push_back(std::move(s));
    }
  }
  return out;
}

void apply_suppressions(const std::vector<Suppression>& suppressions, std::vector<Finding>& findings) {
  if (suppressions.empty()) return;
  std::erase_if(findings, [&](const Finding& f) {
    bool suppressed = false;
    // Every matching suppression is marked, so none of them is later reported as unused.
    for (const Suppression& s : suppressions) {
      const bool on_line = s.file_level || s.line == f.span.start.line || s.line == f.span.end.line;
      if (on_line && covers(s, f)) {
        s.used = true;
        suppressed = true;
      }
    }
    return suppressed;
  });
}

std::vector<UnknownCode> unknown_codes(const std::vector<Suppression>& suppressions) {
  std::vector<UnknownCode> out;
  for (const Suppression& s : suppressions)
    for (const std::string& c : s.codes)
      if (!is_valid_selector(c)) out.push_back({&s, c});
  return out;
}

std::vector<Suppression> unused_suppressions(const std::vector<Suppression>& suppressions) {
  std::vector<Suppression> out;
  // Blanket comments may be there for other tools, so only those that name our rules can be
  // unused; a noqa keeps only its PFL codes, so a non-empty list always names ours.
  for (const Suppression& s : suppressions)
    if (!s.used && !s.all && !s.codes.empty()) out.push_back(s);
  return out;
}

}  // namespace perflint
