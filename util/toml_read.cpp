// See toml_read.hpp.
#include "util/toml_read.hpp"

#include <sstream>

namespace perflint {

Error toml_error_at(const std::string& path, const toml::source_region& where, const std::string& message) {
  std::ostringstream os;
  os << path;
  if (where.begin.line > 0) os << ':' << where.begin.line << ':' << where.begin.column;
  os << ": " << message;
  return make_error(os.str());
}

Expected<toml::table> parse_toml(const std::string& text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return toml_error_at(path, e.source(), std::string("invalid TOML: ") + std::string(e.description()));
  }
}

}  // namespace perflint
