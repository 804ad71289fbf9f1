// Text-level reading of a project's Python files, shared by the sibling look-ups
// (cli/project_files.cpp) and the project linker (cli/project_linker.cpp): no parse.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace perflint::project_text {

// The nearest directory at or above the file's with .git, pyproject.toml, setup.py or setup.cfg (at
// most 4 levels up); none: the file's own directory.
std::string project_root(const std::filesystem::path& file);
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

}  // namespace perflint::project_text
