// Rule docs: docs/rules/<CODE>.md embedded at build time (cmake/embed_docs.cmake). One source for
// `perflint rule`, SARIF help and the docs pages (STYLE.md rule 8).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace perflint {

struct EmbeddedDoc {
  std::string_view code;
  std::string_view markdown;
};
const std::vector<EmbeddedDoc>& embedded_rule_docs();

// The fixed headings, in order, every rule page must have.
const std::vector<std::string_view>& required_doc_headings();

// Markdown of a rule's page, or empty if none.
std::string_view rule_doc(std::string_view code);
// The body under a "## heading" (trimmed), or empty.
std::string doc_section(std::string_view markdown, std::string_view heading);
// Markdown rendered as plain text for terminals and SARIF help.text (headings kept, fences dropped).
std::string doc_plain_text(std::string_view markdown);

}  // namespace perflint
