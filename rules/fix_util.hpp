// Building blocks for rule fixes: edits that keep the file's formatting (indentation, trailing
// commas, line endings, quote style) when a keyword argument is added or a literal is replaced.
#pragma once
#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parser/model.hpp"
#include "rules/finding.hpp"

namespace perflint::fixes {

// An edit with its report positions filled in.
Edit make_edit(const SourceFile& source, uint32_t start, uint32_t end, std::string replacement);
// Replaces the whole node.
Edit replace_node(const SourceFile& source, TSNode node, std::string replacement);

// Adds `name=value` keywords at the end of the call's argument list: `f(a)` -> `f(a, k=v)`,
// `f(a,)` -> `f(a, k=v,)`, `f()` -> `f(k=v)`; a multi-line call whose last argument sits on its own
// line gets a new line with that argument's indentation (and a trailing comma if it used one).
// nullopt when the argument list cannot take one (a generator argument, a syntax error).
std::optional<Edit> add_keywords(const Model& model, const CallInfo& call,
                                 const std::vector<std::pair<std::string_view, std::string_view>>& keywords);

// The argument node written in the call itself (not through a **dict) for `name`, when it is a
// literal of `literal_kind` ("true", "false", "integer"); a null node otherwise.
TSNode literal_argument(const CallInfo& call, TSNode value, std::string_view literal_kind);

// The line terminator the file uses ("\r\n" when its first line ends so), "\n" by default.
std::string_view line_ending(std::string_view text);
// The quote character most string literals in the file start with ('"' on a tie).
char dominant_quote(std::string_view text);

}  // namespace perflint::fixes
