// toml++ at the edge of our code: parsing with its exception turned into an Error, and errors that
// point at a place in the file ("path:line:col: message"). Shared by the config and calibration readers.
#pragma once
#include <toml++/toml.h>

#include <optional>
#include <string>
#include <string_view>

#include "parser/expected.hpp"

namespace perflint {

// Without line:col when the region has none (a key that is missing altogether).
Error toml_error_at(const std::string& path, const toml::source_region& where, const std::string& message);

// Checks the bytes before toml++ sees them: valid UTF-8, and nothing non-ASCII outside strings and
// comments (toml++ 3.3 has undefined behaviour on some such inputs, e.g. the bytes EF B0 9E).
// "path:line:col: ..." or nullopt.
std::optional<Error> check_toml_bytes(std::string_view text, const std::string& path);

// "path:line:col: invalid TOML: <what toml++ says>" on a syntax error; check_toml_bytes first.
Expected<toml::table> parse_toml(const std::string& text, const std::string& path);

}  // namespace perflint
