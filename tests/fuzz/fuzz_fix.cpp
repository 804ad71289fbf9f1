// libFuzzer target: --fix with the unsafe fixes too, on one buffer. Oracles: applying the fixes never
// breaks a script that parsed (the fixed text still parses), and fixing the fixed text again changes
// nothing (fix_buffer repeats until nothing applies).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parser/ts.hpp"
#include "rules/engine.hpp"
#include "rules/fixer.hpp"

namespace {

bool parses(const std::string& bytes, perflint::ts::Parser& parser) {
  static const perflint::RuleSet none;
  const perflint::FileResult r = perflint::lint_buffer("train.py", bytes, none, parser);
  if (!r.linted) return false;
  for (const auto& e : r.errors)
    if (e.kind == perflint::FileError::Kind::Syntax) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace perflint;
  static const RuleSet rules = make_rule_set({"ALL"}, {});
  static ts::Parser parser;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const FixedFile fixed = fix_buffer("train.py", bytes, rules, parser, /*unsafe=*/true);
  if (!fixed.changed) return 0;
  if (parses(bytes, parser) && !parses(fixed.bytes, parser)) {
    std::fprintf(stderr, "the fixed text no longer parses:\n%s\n", fixed.bytes.c_str());
    std::abort();
  }
  const FixedFile again = fix_buffer("train.py", fixed.bytes, rules, parser, /*unsafe=*/true);
  if (again.bytes != fixed.bytes) {
    std::fprintf(stderr, "fixing the fixed text changed it again:\n%s\n---\n%s\n", fixed.bytes.c_str(),
                 again.bytes.c_str());
    std::abort();
  }
  return 0;
}
