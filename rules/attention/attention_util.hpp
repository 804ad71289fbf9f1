// Small tree helpers the attention rules share: following a local name back to what was assigned
// to it, and finding where a name is read later in the same function.
#pragma once
#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "parser/model.hpp"

namespace perflint {

// `(x)` -> `x`.
TSNode unparen(TSNode n);

// Right-hand sides of `name = ...` in the same function as `use` (or at module level), written
// before `use`, latest first.
std::vector<TSNode> values_assigned_before(const Model& model, std::string_view name, TSNode use);

// True when the identifier `name` is read somewhere in `scope` (a function body or module) after
// byte `after`.
bool read_after(const Model& model, std::string_view name, TSNode scope, uint32_t after);

// The function definition around `node`, or the module when there is none.
TSNode scope_of(const Model& model, TSNode node);

// The statement-level node that holds `node`: an assignment, return, expression statement, ...
TSNode statement_of(TSNode node);

}  // namespace perflint
