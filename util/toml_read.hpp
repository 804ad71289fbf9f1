// toml++ at the edge of our code: parsing with its exception turned into an Error, and errors that
// point at a place in the file ("path:line:col: message"). Shared by the config and calibration readers.
#pragma once
#include <toml++/toml.h>

#include <string>

#include "parser/expected.hpp"

namespace perflint {

// Without line:col when the region has none (a key that is missing altogether).
Error toml_error_at(const std::string& path, const toml::source_region& where, const std::string& message);

// "path:line:col: invalid TOML: <what toml++ says>" on a syntax error.
Expected<toml::table> parse_toml(const std::string& text, const std::string& path);

}  // namespace perflint
