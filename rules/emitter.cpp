// Emitter: turns nodes into spans with 1-based positions and appends findings.
#include <tree_sitter/api.h>

#include "rules/rule.hpp"

namespace perflint {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

std::string_view to_string(Verdict::State s) {
  switch (s) {
    case Verdict::State::Confirmed: return "confirmed";
    case Verdict::State::Refuted: return "refuted";
    case Verdict::State::Inconclusive: return "inconclusive";
    case Verdict::State::NotMeasurable: return "not-measurable";
  }
  return "inconclusive";
}

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "info") return Severity::Info;
  if (s == "warning") return Severity::Warning;
  if (s == "error") return Severity::Error;
  return std::nullopt;
}

Span Emitter::span(uint32_t start_byte, uint32_t end_byte) const {
  return Span{start_byte, end_byte, source_.position(start_byte), source_.position(end_byte)};
}

Span Emitter::span(TSNode node) const { return span(ts_node_start_byte(node), ts_node_end_byte(node)); }

Finding& Emitter::report(const Span& sp, std::string message, std::string fix_hint) {
  Finding f;
  f.rule = rule_;
  f.severity = rule_->severity;
  f.path = source_.path();
  f.span = sp;
  f.message = std::move(message);
  f.fix_hint = std::move(fix_hint);
  sink_.push_back(std::move(f));
  return sink_.back();
}

Finding& Emitter::report(TSNode node, std::string message, std::string fix_hint) {
  return report(span(node), std::move(message), std::move(fix_hint));
}

}  // namespace perflint
