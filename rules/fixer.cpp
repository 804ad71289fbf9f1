// The fix loop (see fixer.hpp). Overlap is decided per fix, so a fix is never half applied.
#include "rules/fixer.hpp"

#include <algorithm>

namespace perflint {

bool fix_applies(const Fix& fix, bool unsafe) { return !fix.edits.empty() && (fix.safe || unsafe); }

namespace {

// Two insertions at the same place conflict too: their order would be arbitrary.
bool overlaps(const Edit& a, const Edit& b) {
  if (a.start_byte == b.start_byte) return true;
  return a.start_byte < b.end_byte && b.start_byte < a.end_byte;
}

}  // namespace

AppliedFixes apply_fixes(const std::string& text, const std::vector<Finding>& findings, bool unsafe) {
  std::vector<const Edit*> accepted;
  AppliedFixes out;
  for (const Finding& f : findings) {
    if (!f.fix || !fix_applies(*f.fix, unsafe)) continue;
    bool ok = true;
    for (const Edit& e : f.fix->edits) {
      if (e.start_byte > e.end_byte || e.end_byte > text.size()) ok = false;
      for (const Edit* a : accepted)
        if (overlaps(*a, e)) ok = false;
    }
    // Edits of one fix must not overlap each other either.
    for (size_t i = 0; ok && i < f.fix->edits.size(); ++i)
      for (size_t k = i + 1; k < f.fix->edits.size(); ++k)
        if (overlaps(f.fix->edits[i], f.fix->edits[k])) ok = false;
    if (!ok) continue;
    // A fix whose edits leave the text as it is fixes nothing: it is not counted (nor would the
    // finding go away, so counting it would count it again on every pass).
    const bool changes = std::any_of(f.fix->edits.begin(), f.fix->edits.end(), [&](const Edit& e) {
      return std::string_view(text).substr(e.start_byte, e.end_byte - e.start_byte) != e.replacement;
    });
    if (!changes) continue;
    for (const Edit& e : f.fix->edits) accepted.push_back(&e);
    ++out.applied;
  }
  std::sort(accepted.begin(), accepted.end(), [](const Edit* a, const Edit* b) { return a->start_byte > b->start_byte; });
  out.text = text;
  for (const Edit* e : accepted) out.text.replace(e->start_byte, e->end_byte - e->start_byte, e->replacement);
  return out;
}

FixedFile fix_buffer(const std::string& path, const std::string& bytes, const RuleSet& rules, ts::Parser& parser,
                     bool unsafe, ProjectContext* project, const FileResult* first) {
  // Offsets refer to the text after one BOM (SourceFile drops exactly one). Every pass lints the
  // bytes with that BOM in front, so the offsets always index `text`, however many BOMs follow it.
  const std::string bom = bytes.rfind("\xEF\xBB\xBF", 0) == 0 ? "\xEF\xBB\xBF" : "";
  std::string text = bytes.substr(bom.size());
  FixedFile out;
  out.result = first ? *first : lint_buffer(path, bytes, rules, parser, project);
  // As ruff does, a file with a syntax error is not fixed: tree-sitter's error recovery can place
  // an edit where the next parse does not see it, and the same fix would then be added every pass.
  for (int pass = 0; pass < kMaxFixPasses && out.result.linted && !out.result.has_syntax_error(); ++pass) {
    AppliedFixes a = apply_fixes(text, out.result.findings, unsafe);
    if (a.applied == 0 || a.text == text) break;
    out.applied += a.applied;
    text = std::move(a.text);
    out.changed = true;
    out.result = lint_buffer(path, bom + text, rules, parser, project);
  }
  out.bytes = bom + text;
  return out;
}

}  // namespace perflint
