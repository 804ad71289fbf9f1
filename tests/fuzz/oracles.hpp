// What each fuzz target checks on one input, shared by the libFuzzer targets (fuzz_*.cpp abort on a
// non-empty answer) and by tests/fuzz_corpus_test.cpp, which replays the committed corpus
// (tests/fuzz/corpus/TARGET/, found crashes included) in every build of the test suite.
// Each returns what went wrong, or an empty string; a crash or sanitizer report is the other oracle.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/config.hpp"
#include "parser/ts.hpp"
#include "probe/evidence.hpp"
#include "rules/engine.hpp"
#include "rules/fixer.hpp"

namespace perflint::fuzz {

inline const RuleSet& all_rules() {
  static const RuleSet rules = make_rule_set({"ALL"}, {});  // opt-in rules too: unused suppressions
  return rules;
}

// Lint never throws, and every finding points inside the text it was made on.
inline std::string lint_one(const std::string& bytes, ts::Parser& parser) {
  const FileResult r = lint_buffer("train.py", bytes, all_rules(), parser);
  const size_t text_size = bytes.size() - (bytes.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0);
  for (const Finding& f : r.findings) {
    if (f.span.start_byte > f.span.end_byte || f.span.end_byte > text_size)
      return std::string(f.rule->code) + ": span outside the text";
    if (f.span.start.line < 1 || f.span.start.line > r.lines + 1) return std::string(f.rule->code) + ": bad line";
  }
  return {};
}

inline bool parses(const std::string& bytes, ts::Parser& parser) {
  static const RuleSet none;
  const FileResult r = lint_buffer("train.py", bytes, none, parser);
  if (!r.linted) return false;
  for (const auto& e : r.errors)
    if (e.kind == FileError::Kind::Syntax) return false;
  return true;
}

// --fix with the unsafe fixes too: a script that parsed still parses, and fixing again changes nothing.
inline std::string fix_one(const std::string& bytes, ts::Parser& parser) {
  const FixedFile fixed = fix_buffer("train.py", bytes, all_rules(), parser, /*unsafe=*/true);
  if (!fixed.changed) return {};
  if (parses(bytes, parser) && !parses(fixed.bytes, parser)) return "the fixed text no longer parses:\n" + fixed.bytes;
  const FixedFile again = fix_buffer("train.py", fixed.bytes, all_rules(), parser, /*unsafe=*/true);
  if (again.bytes != fixed.bytes)
    return "fixing the fixed text changed it again:\n" + fixed.bytes + "\n---\n" + again.bytes;
  return {};
}

// The config reader: the first byte picks perflint.toml (even) or pyproject.toml (odd). Bad input
// must be an Error value.
inline std::string config_one(const std::string& input) {
  if (input.empty()) return {};
  const std::string path = (static_cast<unsigned char>(input[0]) & 1) ? "pyproject.toml" : "perflint.toml";
  (void)parse_config(path, input.substr(1));
  return {};
}

// The evidence reader, and the GPU activity file (the bytes after the first NUL, if any).
inline std::string evidence_one(const std::string& input) {
  const size_t nul = input.find('\0');
  auto e = probe::parse_evidence(input.substr(0, nul), "evidence.json");
  if (nul == std::string::npos) return {};
  probe::Evidence base;
  (void)probe::add_gpu_activity(e ? *e : base, input.substr(nul + 1), "gpu.json");
  return {};
}

}  // namespace perflint::fuzz
