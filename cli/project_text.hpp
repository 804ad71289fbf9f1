// Text-level reading of a project's Python files, shared by the sibling look-ups
// (cli/project_files.cpp) and the project linker (cli/project_linker.cpp): no parse.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace perflint::project_text {

// The nearest directory at or above the file's with a project marker (.git, pyproject.toml, setup.py,
// setup.cfg, requirements.txt, a LICENSE) at most 4 levels up; none: the file's own directory.
// `has_marker`, when given, remembers per directory whether it holds one, so that the files of a run
// probe each directory once instead of eight stats per level per file.
std::string project_root(const std::filesystem::path& file,
                         std::unordered_map<std::string, bool>* has_marker = nullptr);
// The import statements of a text, one per entry ("import a.b as c, d" / "from a.b import c"),
// comments dropped and a statement continued in parentheses or after a backslash joined (bounded).
std::vector<std::string> import_lines(std::string_view text);
// The names of an import statement: "from ..a.b import (c as d, e)" -> from, ..a.b, import, c, as, d,
// e; "from m import *" -> from, m, import, *.
std::vector<std::string> import_words(std::string_view s);
// Whether `word` occurs in the text on a line that may be code: not on a comment line and not on a
// doctest line (">>> ", "... "), as in the usage examples of library docstrings.
bool mentions_in_code(std::string_view text, std::string_view word);
// Where mentions_in_code finds `word` first (npos: nowhere).
size_t first_in_code(std::string_view text, std::string_view word);

// A class of a text: its name, its bases as written (`pkg.Base, Mixin`) and the methods its body
// defines (a `def name(` indented below the header).
struct ClassText {
  std::string name, bases;
  std::vector<std::string> methods;
};
// The classes of `text`; text level, the header's parentheses joined over a few lines.
std::vector<ClassText> classes_in(std::string_view text);
// `base` is one of the bases written in `bases` (a whole name, also after a dot: `pkg.base`).
bool names_base(std::string_view bases, std::string_view base);
// Whether `text` names `name` as a value on a code line that is not a class header, an import or a
// def, nor inside `super(name, ...)`: an instance built (`name(...)`), a registry entry, an isinstance
// test, an alias. Text level (a mention in a string counts).
bool names_as_value(std::string_view text, std::string_view name);

// One import statement: `from ..utils import misc, meters` -> level 2, module "utils", names
// {misc, meters}; `import a.b as c` -> level 0, module "a.b", no names. Text level: a statement
// continued in parentheses or after a backslash is joined first.
struct ImportStatement {
  int level = 0;
  std::string module;
  std::vector<std::string> names;
  std::vector<std::string> bound;  // the name each of `names` is bound to (`c as d` -> d)
};
// `from pkg.mod import ...` / `import pkg.mod` for a module whose file stem is `stem`.
bool from_module(const ImportStatement& s, std::string_view stem);
// `from pkg import mod`: the module itself, as a name.
bool names_module(const ImportStatement& s, std::string_view stem);
// The import statements of `text`, parsed into ImportStatement.
std::vector<ImportStatement> import_statements(std::string_view text);
// A test file by its path relative to the root: any directory on the way named like tests, or
// is_test_path's names.
bool test_file(std::string_view rel);
// The path of `f` relative to `root` (f lies under it).
std::string_view relative_to(const std::string& f, const std::string& root);
// `def name` or `class name` at the start of a line of `text` (any indentation). Text level.
bool defines(std::string_view text, std::string_view name);

}  // namespace perflint::project_text
