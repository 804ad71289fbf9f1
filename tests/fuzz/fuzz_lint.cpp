// libFuzzer target: lint one buffer with every rule (opt-in ones too, so that the suppression
// comments in the input are checked for use) as a training script. The oracle is the sanitizers and
// the engine's promise that it never throws; findings must point inside the text they were made on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "parser/ts.hpp"
#include "rules/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace perflint;
  static const RuleSet rules = make_rule_set({"ALL"}, {});
  static ts::Parser parser;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  const FileResult r = lint_buffer("train.py", bytes, rules, parser);
  const size_t text_size = size - (bytes.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0);
  for (const Finding& f : r.findings) {
    if (f.span.start_byte > f.span.end_byte || f.span.end_byte > text_size) std::abort();
    if (f.span.start.line < 1 || f.span.start.line > r.lines + 1) std::abort();
  }
  return 0;
}
