// Configuration loading and validation (toml++), config discovery, and the glob matcher used by
// `exclude` and `per-file-ignores`. Every problem becomes an Error naming file:line:col and the key.
#include "cli/config.hpp"
#include "util/suggest.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "util/toml_read.hpp"
#include "rules/registry.hpp"

namespace perflint {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kKnownKeys[] = {
    "select", "extend-select", "ignore", "per-file-ignores", "exclude", "severity",
    "max-file-size", "steps", "warmup", "timeout", "python",
    "report-html", "trace", "respect-gitignore",
};

// Concatenation by appending: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
// `"literal" + std::string` chains, and warnings are errors here.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date/time";
    default: return "nothing";
  }
}

// How a value is shown back in an error: strings quoted, others as TOML writes them.
std::string show(const toml::node& n) {
  if (const auto* s = n.as_string()) return cat({"\"", s->get(), "\""});
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  std::ostringstream os;
  n.visit([&](const auto& v) { os << v; });
  return os.str();
}

// Builds file:line:col-prefixed errors for one config file.
class Checker {
 public:
  Checker(std::string path, std::string section) : path_(std::move(path)), section_(std::move(section)) {}

  Error at(const toml::source_region& where, const std::string& message) const {
    return toml_error_at(path_, where, message);
  }
  const std::string& section() const { return section_; }

 private:
  std::string path_;
  std::string section_;
};

// Exact codes must name a rule; prefixes ("PFL", "PFL1") are accepted while the registry grows,
// so that a config written for a newer perflint still says what it means.
std::optional<std::string> selector_problem(std::string_view s) {
  if (is_valid_selector(s)) return std::nullopt;
  const std::string l = lower(s);
  if (l.size() >= 3 && l.size() <= 5 && l.starts_with("pfl") &&
      std::all_of(l.begin() + 3, l.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  std::string msg = cat({"unknown rule '", s, "'"});
  std::vector<std::string_view> names;
  for (const auto& r : all_rules()) names.push_back(r->info().name), names.push_back(r->info().code);
  if (auto best = closest_match(s, names); !best.empty()) msg += cat({" (did you mean '", best, "'?)"});
  return msg;
}

std::optional<Error> read_string_array(const Checker& ck, std::string_view key, const toml::node& value,
                                       bool selectors, std::vector<std::string>& out) {
  const toml::array* arr = value.as_array();
  if (!arr) return ck.at(value.source(), cat({"'", key, "' must be an array of strings, got ", type_name(value)}));
  for (const toml::node& el : *arr) {
    const auto* s = el.as_string();
    if (!s)
      return ck.at(el.source(), cat({"'", key, "' must be an array of strings, got ", type_name(el), " in it"}));
    if (selectors) {
      if (auto problem = selector_problem(s->get())) return ck.at(el.source(), cat({"'", key, "': ", *problem}));
    }
    out.push_back(s->get());
  }
  return std::nullopt;
}

std::optional<bool> match_class(std::string_view p, size_t i, char c, size_t& next);

// What is wrong with a glob of exclude/per-file-ignores, if anything: today, a '[' that opens a
// class never closed (the matcher would take it literally, so the pattern would silently never match).
std::optional<std::string> glob_problem(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '[') continue;
    size_t next = 0;
    if (!match_class(pattern, i, 'a', next))
      return cat({"the glob \"", pattern, "\" has a '[' that is never closed (write [[] for a literal '[')"});
    i = next - 1;
  }
  return std::nullopt;
}

std::optional<uint64_t> parse_size(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t num_start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  const std::string number(text.substr(num_start, i - num_start));
  if (number.empty() || number.size() > 24 || std::count(number.begin(), number.end(), '.') > 1 || number.front() == '.' || number.back() == '.')
    return std::nullopt;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit = lower(text.substr(i));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  static const std::pair<std::string_view, double> units[] = {
      {"", 1}, {"b", 1}, {"k", 1e3}, {"kb", 1e3}, {"m", 1e6}, {"mb", 1e6}, {"g", 1e9}, {"gb", 1e9},
      {"kib", 1024.0}, {"mib", 1024.0 * 1024}, {"gib", 1024.0 * 1024 * 1024},
  };
  for (const auto& [name, factor] : units) {
    if (unit != name) continue;
    const double bytes = std::floor(std::stod(number) * factor);
    if (!(bytes >= 1) || bytes > 1e18) return std::nullopt;
    return static_cast<uint64_t>(bytes);
  }
  return std::nullopt;
}

std::optional<Error> read_int(const Checker& ck, std::string_view key, const toml::node& value, int64_t min,
                              std::string_view requirement, std::optional<int>& out) {
  const auto* i = value.as_integer();
  if (!i || i->get() < min || i->get() > std::numeric_limits<int>::max())
    return ck.at(value.source(), cat({"'", key, "' must be ", requirement, ", got ", show(value)}));
  out = static_cast<int>(i->get());
  return std::nullopt;
}

std::optional<Error> read_key(const Checker& ck, std::string_view key, const toml::node& value, Config& cfg) {
  if (key == "select") return read_string_array(ck, key, value, true, cfg.select);
  if (key == "extend-select") return read_string_array(ck, key, value, true, cfg.extend_select);
  if (key == "ignore") return read_string_array(ck, key, value, true, cfg.ignore);
  if (key == "exclude") {
    if (auto e = read_string_array(ck, key, value, false, cfg.exclude)) return e;
    if (const toml::array* arr = value.as_array())
      for (const toml::node& el : *arr)
        if (auto problem = glob_problem(el.as_string()->get())) return ck.at(el.source(), cat({"'exclude': ", *problem}));
    return std::nullopt;
  }
  if (key == "per-file-ignores") {
    const toml::table* t = value.as_table();
    if (!t) return ck.at(value.source(), cat({"'per-file-ignores' must be a table of glob = [rules], got ", type_name(value)}));
    for (auto&& [glob, sels] : *t) {
      PerFileIgnore pfi;
      pfi.pattern = std::string(glob.str());
      const std::string sub = cat({"per-file-ignores.\"", pfi.pattern, "\""});
      if (auto problem = glob_problem(pfi.pattern)) return ck.at(sels.source(), cat({"'", sub, "': ", *problem}));
      if (auto e = read_string_array(ck, sub, sels, true, pfi.selectors)) return e;
      cfg.per_file_ignores.push_back(std::move(pfi));
    }
    return std::nullopt;
  }
  if (key == "severity") {
    const toml::table* t = value.as_table();
    if (!t) return ck.at(value.source(), cat({"'severity' must be a table of rule = \"info\"|\"warning\"|\"error\", got ", type_name(value)}));
    for (auto&& [rule_key, level] : *t) {
      const std::string name(rule_key.str());
      const Rule* rule = find_rule(name);
      if (!rule) {
        std::string msg = cat({"'severity': unknown rule '", name, "'"});
        std::vector<std::string_view> names;
        for (const auto& r : all_rules()) names.push_back(r->info().name), names.push_back(r->info().code);
        if (auto best = closest_match(name, names); !best.empty()) msg += cat({" (did you mean '", best, "'?)"});
        return ck.at(rule_key.source(), msg);
      }
      const auto* s = level.as_string();
      std::optional<Severity> sev = s ? parse_severity(s->get()) : std::nullopt;
      if (!sev)
        return ck.at(level.source(), cat({"'severity.", name, "' must be \"info\", \"warning\" or \"error\", got ", show(level)}));
      cfg.severity[std::string(rule->info().code)] = *sev;
    }
    return std::nullopt;
  }
  if (key == "max-file-size") {
    std::optional<uint64_t> size;
    if (const auto* i = value.as_integer(); i && i->get() > 0) size = static_cast<uint64_t>(i->get());
    if (const auto* s = value.as_string()) size = parse_size(s->get());
    if (!size)
      return ck.at(value.source(), cat({"'max-file-size' must be a size like 10485760 or \"10MiB\", got ", show(value)}));
    cfg.max_file_size = *size;
    return std::nullopt;
  }
  if (key == "steps") return read_int(ck, key, value, 1, "an integer > 0", cfg.steps);
  if (key == "warmup") return read_int(ck, key, value, 0, "an integer >= 0", cfg.warmup);
  if (key == "timeout") return read_int(ck, key, value, 1, "a number of seconds > 0", cfg.timeout);
  if (key == "python") {
    const auto* s = value.as_string();
    if (!s || s->get().empty())
      return ck.at(value.source(), cat({"'python' must be the path or name of a Python executable, got ", show(value)}));
    cfg.python = s->get();
    return std::nullopt;
  }
  if (key == "report-html" || key == "trace" || key == "respect-gitignore") {
    const auto* b = value.as_boolean();
    if (!b) return ck.at(value.source(), cat({"'", key, "' must be true or false, got ", show(value)}));
    (key == "trace" ? cfg.trace : key == "report-html" ? cfg.report_html : cfg.respect_gitignore) = b->get();
    return std::nullopt;
  }
  return std::nullopt;  // unreachable: keys are checked against kKnownKeys first
}

bool is_pyproject(const std::string& path) { return fs::path(path).filename() == "pyproject.toml"; }

}  // namespace

Expected<Config> parse_config(const std::string& path, const std::string& text) {
  Expected<toml::table> parsed = parse_toml(text, path);
  if (!parsed) return parsed.error();
  const toml::table& doc = *parsed;

  const bool pyproject = is_pyproject(path);
  Checker ck(path, pyproject ? "[tool.perflint]" : "");
  const toml::table* table = &doc;
  if (pyproject) {
    const toml::node* node = doc.at_path("tool.perflint").node();
    if (!node) return Config{};  // not configured here: the caller keeps looking
    table = node->as_table();
    if (!table) return ck.at(node->source(), cat({"'tool.perflint' must be a table, got ", type_name(*node)}));
  }

  Config cfg;
  cfg.path = path;
  const fs::path parent = fs::path(path).parent_path();
  cfg.root = parent.empty() ? std::string(".") : parent.string();
  for (auto&& [key, value] : *table) {
    const std::string_view k = key.str();
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), k) == std::end(kKnownKeys)) {
      std::string msg = cat({"unknown key '", k, "'"});
      if (!ck.section().empty()) msg += cat({" in ", ck.section()});
      if (auto best = closest_match(k, kKnownKeys); !best.empty()) msg += cat({" (did you mean '", best, "'?)"});
      return ck.at(key.source(), msg);
    }
    if (auto e = read_key(ck, k, value, cfg)) return *e;
  }
  return cfg;
}

Expected<Config> load_config(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return make_error(cat({path, ": cannot read config: is a directory"}));
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(cat({path, ": cannot read config: ", std::strerror(errno)}));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return make_error(cat({path, ": cannot read config: read error"}));
  return parse_config(path, buf.str());
}

Expected<Config> discover_config(const std::string& start_dir) {
  std::error_code ec;
  fs::path dir = fs::absolute(start_dir.empty() ? "." : start_dir, ec);
  if (ec) return make_error(cat({start_dir, ": ", ec.message()}));
  dir = dir.lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "a/b/" -> "a/b"
  // Paths under the working directory are shown relative to it, as the user typed them.
  const fs::path cwd = fs::current_path(ec);
  auto display = [&](const fs::path& p) {
    if (!ec) {
      fs::path rel = p.lexically_relative(cwd);
      if (!rel.empty() && *rel.begin() != "..") return rel.string();
    }
    return p.string();
  };
  for (;;) {
    for (const char* name : {".perflint.toml", "perflint.toml", "pyproject.toml"}) {
      const fs::path candidate = dir / name;
      std::error_code e2;
      if (!fs::is_regular_file(candidate, e2)) continue;
      auto cfg = load_config(display(candidate));
      if (!cfg) return cfg;
      if (cfg->path.empty()) continue;  // a pyproject.toml without [tool.perflint]
      cfg->root = dir.string();
      return cfg;
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return Config{};
}

namespace {

// Matches a bracket expression at pattern[i] ('[' already there); sets `next` past the ']'.
// Returns nullopt when the bracket is not closed, so that '[' is then taken literally.
std::optional<bool> match_class(std::string_view p, size_t i, char c, size_t& next) {
  size_t j = i + 1;
  bool negate = false;
  if (j < p.size() && (p[j] == '!' || p[j] == '^')) negate = true, ++j;
  bool matched = false;
  bool first = true;
  for (; j < p.size() && (p[j] != ']' || first); ++j) {
    first = false;
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      if (p[j] <= c && c <= p[j + 2]) matched = true;
      j += 2;
    } else if (p[j] == c) {
      matched = true;
    }
  }
  if (j >= p.size()) return std::nullopt;
  next = j + 1;
  return matched != negate;
}

// Whole-string glob match; memoised over (pattern, text) positions so `**` stays polynomial.
class Glob {
 public:
  Glob(std::string_view p, std::string_view t) : p_(p), t_(t), memo_((p.size() + 1) * (t.size() + 1), -1) {}
  bool match(size_t i, size_t j) {
    int8_t& m = memo_[i * (t_.size() + 1) + j];
    if (m < 0) m = compute(i, j) ? 1 : 0;
    return m == 1;
  }

 private:
  bool compute(size_t i, size_t j) {
    if (i == p_.size()) return j == t_.size();
    const char c = p_[i];
    if (c == '*') {
      if (i + 1 < p_.size() && p_[i + 1] == '*') {
        const size_t after = i + 2;
        // "**/" may also stand for no directory at all ("a/**/b" matches "a/b").
        if (after < p_.size() && p_[after] == '/' && match(after + 1, j)) return true;
        for (size_t k = j; k <= t_.size(); ++k)
          if (match(after, k)) return true;
        return false;
      }
      for (size_t k = j; k <= t_.size(); ++k) {
        if (match(i + 1, k)) return true;
        if (k < t_.size() && t_[k] == '/') break;
      }
      return false;
    }
    if (j == t_.size()) return false;
    if (c == '?') return t_[j] != '/' && match(i + 1, j + 1);
    if (c == '[' && t_[j] != '/') {
      size_t next = 0;
      if (auto r = match_class(p_, i, t_[j], next)) return *r && match(next, j + 1);
    }
    return c == t_[j] && match(i + 1, j + 1);
  }

  std::string_view p_, t_;
  std::vector<int8_t> memo_;
};

bool glob_whole(std::string_view pattern, std::string_view text) { return Glob(pattern, text).match(0, 0); }

std::string_view strip_dot_slash(std::string_view s) {
  while (s.starts_with("./")) s.remove_prefix(2);
  return s;
}

}  // namespace

// A pattern without '/' matches any one path component (the basename or a directory name); one
// with '/' is anchored at the root. Either way a matching directory covers everything below it,
// as in .gitignore, so "tests/*" also matches "tests/unit/test_x.py".
bool glob_match_whole(std::string_view pattern, std::string_view text) { return glob_whole(pattern, text); }

bool glob_match(std::string_view pattern, std::string_view path) {
  pattern = strip_dot_slash(pattern);
  path = strip_dot_slash(path);
  while (pattern.starts_with('/')) pattern.remove_prefix(1);
  while (pattern.size() > 1 && pattern.ends_with('/')) pattern.remove_suffix(1);
  if (pattern.empty()) return false;
  const bool anchored = pattern.find('/') != std::string_view::npos;
  size_t seg_start = 0;
  for (;;) {
    const size_t slash = path.find('/', seg_start);
    const size_t seg_end = slash == std::string_view::npos ? path.size() : slash;
    if (anchored ? glob_whole(pattern, path.substr(0, seg_end))
                 : glob_whole(pattern, path.substr(seg_start, seg_end - seg_start)))
      return true;
    if (slash == std::string_view::npos) return false;
    seg_start = slash + 1;
  }
}

}  // namespace perflint
