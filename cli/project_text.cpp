// Text-level reading of a project's import statements and definitions (see project_text.hpp).
#include <algorithm>
#include <cctype>

#include "cli/project_text.hpp"
#include "parser/project.hpp"
#include "parser/text_util.hpp"

namespace perflint::project_text {

// `from pkg.mod import ...` / `import pkg.mod` for a module whose file stem is `stem`.
bool from_module(const ImportStatement& s, std::string_view stem) {
  return !s.module.empty() && last_component(s.module) == stem;
}
// `from pkg import mod`: the module itself, as a name.
bool names_module(const ImportStatement& s, std::string_view stem) {
  return std::find(s.names.begin(), s.names.end(), stem) != s.names.end();
}

std::vector<ImportStatement> import_statements(std::string_view text) {
  std::vector<ImportStatement> out;
  for (const std::string& stmt : import_lines(text)) {
    const std::vector<std::string> w = import_words(stmt);
    if (w.size() >= 2 && w[0] == "import") {
      for (size_t i = 1; i < w.size(); ++i)
        if (w[i] == "as") ++i;
        else out.push_back({0, w[i], {}, {}});
    } else if (w.size() >= 3 && w[0] == "from") {
      ImportStatement s;
      std::string_view m = w[1];
      while (!m.empty() && m.front() == '.') ++s.level, m.remove_prefix(1);
      s.module = std::string(m);
      size_t i = 2;
      if (w[i] != "import") continue;
      for (++i; i < w.size(); ++i)
        if (w[i] == "as") {
          if (++i < w.size() && !s.bound.empty()) s.bound.back() = w[i];
        } else {
          s.names.push_back(w[i]);
          s.bound.push_back(w[i]);
        }
      out.push_back(std::move(s));
    }
  }
  return out;
}


// A test file by its path relative to the root: any directory on the way named like tests, or
// is_test_path's names. On the string: it runs for every file of a root, and fs::path splits the
// path into components on every call.
bool test_file(std::string_view rel) {
  for (size_t at = 0, slash; (slash = rel.find('/', at)) != std::string_view::npos; at = slash + 1) {
    const std::string_view part = rel.substr(at, slash - at);
    if (part == "test" || part == "tests" || part == "testing" || part == "_testing") return true;
  }
  return is_test_path(rel);
}

// The path of `f` relative to `root` (f lies under it).
std::string_view relative_to(const std::string& f, const std::string& root) {
  return std::string_view(f).substr(std::min(f.size(), root.size() + 1));
}


// `def name` or `class name` at the start of a line of `text` (any indentation: a method's class is
// the first component). Text level.
bool defines(std::string_view text, std::string_view name) {
  for (std::string_view kw : {"def ", "class "})
    for (size_t at = text.find(kw); at != std::string_view::npos; at = text.find(kw, at + 1)) {
      size_t line = at;
      while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
      if (line > 0 && text[line - 1] != '\n') continue;
      const size_t n = at + kw.size();
      const size_t e = n + name.size();
      if (text.compare(n, name.size(), name) == 0 && e < text.size() &&
          !(std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_'))
        return true;
    }
  return false;
}


}  // namespace perflint::project_text
