// Access to the embedded rule docs: sections and a plain-text rendering.
#include "rules/docs.hpp"

#include <sstream>

namespace perflint {

const std::vector<std::string_view>& required_doc_headings() {
  static const std::vector<std::string_view> h = {
      "What it does", "Why is this bad?", "Example", "Use instead",
      "When it does not apply", "How the probe measures it", "Options"};
  return h;
}

std::string_view rule_doc(std::string_view code) {
  for (const auto& d : embedded_rule_docs())
    if (d.code == code) return d.markdown;
  return {};
}

std::string doc_section(std::string_view md, std::string_view heading) {
  const std::string marker = "## " + std::string(heading);
  size_t pos = 0;
  while ((pos = md.find(marker, pos)) != std::string_view::npos) {
    const bool at_line_start = pos == 0 || md[pos - 1] == '\n';
    const size_t eol = md.find('\n', pos);
    const bool whole_line = md.substr(pos, (eol == std::string_view::npos ? md.size() : eol) - pos) == marker;
    if (at_line_start && whole_line) break;
    pos += marker.size();
  }
  if (pos == std::string_view::npos) return {};
  size_t start = md.find('\n', pos);
  if (start == std::string_view::npos) return {};
  ++start;
  size_t end = md.find("\n## ", start);
  if (end == std::string_view::npos) end = md.size();
  std::string body(md.substr(start, end - start));
  const auto first = body.find_first_not_of(" \n");
  const auto last = body.find_last_not_of(" \n");
  return first == std::string::npos ? std::string{} : body.substr(first, last - first + 1);
}

std::string doc_plain_text(std::string_view md) {
  std::istringstream in{std::string(md)};
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) continue;
    if (line.rfind("## ", 0) == 0) line = line.substr(3) + ":";
    else if (line.rfind("# ", 0) == 0) line = line.substr(2);
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace perflint
