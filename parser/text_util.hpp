// Small string helpers shared by the model, the rules and the probe.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdint>
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

// How many times `word` occurs in `text` as a whole name (not inside a longer ASCII identifier),
// counting up to `limit`.
inline size_t count_word(std::string_view text, std::string_view word, size_t limit = SIZE_MAX) {
  const auto name_byte = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  size_t n = 0;
  if (word.empty()) return n;
  for (size_t at = text.find(word); at != std::string_view::npos && n < limit; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !name_byte(text[at - 1])) && (end >= text.size() || !name_byte(text[end]))) ++n;
  }
  return n;
}
inline bool names_word(std::string_view text, std::string_view word) { return count_word(text, word, 1) > 0; }

// `part` is a part of the name between non-letters (`dev` in `dev_loader`, `loader_dev`, `dev2`; not
// in `device_loader`).
inline bool has_name_part(std::string_view name, std::string_view part) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (part.empty()) return false;
  for (size_t at = name.find(part); at != std::string_view::npos; at = name.find(part, at + 1)) {
    const size_t end = at + part.size();
    if ((at == 0 || !letter(name[at - 1])) && (end >= name.size() || !letter(name[end]))) return true;
  }
  return false;
}

// A name about the device (`--cuda`, `use_gpu`, `args.device`, `get_device`, `accelerator`).
inline bool names_device(std::string_view name) {
  for (std::string_view w : {"cuda", "gpu", "device", "accel"})
    if (icontains(name, w)) return true;
  return false;
}

// Whether an assignment starts at `text[i]` after blanks: `=` (not `==`), or an augmented `+=`, `-=`, ...
inline bool assignment_at(std::string_view text, size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < text.size() && text[i] == '=') return i + 1 >= text.size() || text[i + 1] != '=';
  return i + 1 < text.size() && text[i + 1] == '=' && std::string_view("+-*/|&%@^").find(text[i]) != std::string_view::npos;
}

// The name a top-level line of a module binds: `def name(`, `async def name(`, `class Name`, or a
// plain `NAME = ...` written at the start of the line; empty for any other line.
inline std::string_view top_level_name(std::string_view line) {
  const auto name_byte = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  size_t skip = 0;
  if (line.starts_with("class ")) skip = 6;
  else if (line.starts_with("def ")) skip = 4;
  else if (line.starts_with("async def ")) skip = 10;
  size_t end = skip;
  while (end < line.size() && name_byte(line[end])) ++end;
  if (end == skip || (line[skip] >= '0' && line[skip] <= '9')) return {};
  // `NAME = value`, not `NAME == x` nor `NAME += 1` (a rebinding of what an earlier line bound).
  if (skip == 0) {
    size_t eq = end;
    while (eq < line.size() && line[eq] == ' ') ++eq;
    if (eq >= line.size() || line[eq] != '=' || (eq + 1 < line.size() && line[eq + 1] == '=')) return {};
  }
  return line.substr(skip, end - skip);
}

// Calls `f(name)` for each name a top-level line of `text` binds (top_level_name); stops when it
// returns true, and returns whether it did.
template <typename F>
bool any_top_level_name(std::string_view text, F&& f) {
  for (size_t at = 0; at < text.size();) {
    const size_t eol = std::min(text.find('\n', at), text.size());
    const std::string_view name = top_level_name(text.substr(at, eol - at));
    at = eol + 1;
    if (!name.empty() && f(name)) return true;
  }
  return false;
}

// Whether `text` may change `owner.attr` (`owner` empty: any object's `.attr`) at run time: an
// assignment or augmented assignment to it (`CFG.num_workers = 8`, `settings.WORKERS += 1`, not
// `==`), a `setattr(owner, ...)` (with `owner` empty: a setattr naming "attr"), `vars(owner)` or
// `owner.__dict__`. A text test: it errs towards "may change".
inline bool may_write_attribute(std::string_view text, std::string_view owner, std::string_view attr) {
  const auto name_byte = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (size_t at = text.find(attr); at != std::string_view::npos; at = text.find(attr, at + 1)) {
    const size_t end = at + attr.size();
    if (at == 0 || text[at - 1] != '.' || (end < text.size() && name_byte(text[end]))) continue;
    if (!owner.empty()) {
      if (at < owner.size() + 1 || text.substr(at - 1 - owner.size(), owner.size()) != owner) continue;
      const size_t before = at - 1 - owner.size();
      if (before > 0 && (name_byte(text[before - 1]) || text[before - 1] == '.')) continue;
    }
    if (assignment_at(text, end)) return true;
  }
  if (owner.empty()) {
    if (text.find("setattr(") == std::string_view::npos) return false;
    for (const char q : {'"', '\''})
      for (size_t at = text.find(attr); at != std::string_view::npos; at = text.find(attr, at + 1))
        if (at > 0 && text[at - 1] == q && at + attr.size() < text.size() && text[at + attr.size()] == q) return true;
    return false;
  }
  for (size_t at = text.find(owner); at != std::string_view::npos; at = text.find(owner, at + 1)) {
    const size_t end = at + owner.size();
    if (end < text.size() && name_byte(text[end])) continue;
    if (at > 0 && name_byte(text[at - 1])) continue;
    const std::string_view before = text.substr(0, at), after = text.substr(end);
    const auto ends_with = [&](std::string_view w) {
      size_t e = before.size();
      while (e > 0 && (before[e - 1] == ' ' || before[e - 1] == '\t')) --e;
      return e >= w.size() && before.substr(e - w.size(), w.size()) == w;
    };
    if (ends_with("setattr(") || ends_with("vars(") || after.starts_with(".__dict__")) return true;
  }
  return false;
}

}  // namespace perflint
