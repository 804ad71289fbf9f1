// .gitignore parsing and matching (see gitignore.hpp); patterns use the config's glob matcher,
// whose `*`, `?`, `[...]` and `**` are git's.
#include "cli/gitignore.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "cli/config.hpp"
#include "util/io.hpp"

namespace perflint {

namespace {

namespace fs = std::filesystem;

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) p = fs::path(path);
  std::string s = p.lexically_normal().generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The part of `abs` below `dir`, or npos-equivalent (false) when it is not below.
bool below(std::string_view abs, std::string_view dir, std::string_view& rel) {
  if (dir == "/") {
    if (abs.size() < 2 || abs[0] != '/') return false;
    rel = abs.substr(1);
    return true;
  }
  if (abs.size() <= dir.size() + 1 || abs.substr(0, dir.size()) != dir || abs[dir.size()] != '/') return false;
  rel = abs.substr(dir.size() + 1);
  return true;
}

// Ignore files are small; one that is unreadable or huge is treated as empty rather than failing
// the run (git does the same for an unreadable one, with a warning we do not repeat).
std::vector<IgnoreRule> read_rules(const std::string& file) {
  const FileRead read = read_whole_file(file, 4ull << 20);
  if (read.status != FileRead::Status::Ok) return {};
  return parse_gitignore(read.bytes);
}

}  // namespace

std::vector<IgnoreRule> parse_gitignore(std::string_view text) {
  std::vector<IgnoreRule> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Trailing blanks go unless the last one is escaped ("foo\ " keeps one).
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
      if (line.size() >= 2 && line[line.size() - 2] == '\\') break;
      line.remove_suffix(1);
    }
    if (line.empty() || line.front() == '#') continue;
    IgnoreRule r;
    if (line.front() == '!') {
      r.negate = true;
      line.remove_prefix(1);
    } else if (line.starts_with("\\!") || line.starts_with("\\#")) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      r.dir_only = true;
      while (!line.empty() && line.back() == '/') line.remove_suffix(1);
    }
    if (line.empty()) continue;
    r.anchored = line.find('/') != std::string_view::npos;
    while (line.starts_with('/')) line.remove_prefix(1);
    if (line.empty()) continue;
    // An escaped trailing blank stays a blank.
    std::string p(line);
    if (p.size() >= 2 && p[p.size() - 2] == '\\' && (p.back() == ' ' || p.back() == '\t')) p.erase(p.size() - 2, 1);
    r.pattern = std::move(p);
    out.push_back(std::move(r));
  }
  return out;
}

bool ignore_rule_matches(const IgnoreRule& rule, std::string_view rel, bool is_dir) {
  if (rule.dir_only && !is_dir) return false;
  if (rule.anchored) return glob_match_whole(rule.pattern, rel);
  const size_t slash = rel.rfind('/');
  return glob_match_whole(rule.pattern, slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

size_t IgnoreStack::push_file(const std::string& abs_dir, const std::string& file, bool repo_root) {
  std::vector<IgnoreRule> rules = read_rules(file);
  if (rules.empty() && !repo_root) return 0;
  levels_.push_back({abs_dir, std::move(rules), repo_root});
  return 1;
}

void IgnoreStack::start(const std::string& dir) {
  levels_.clear();
  in_repo_ = false;
  const std::string abs = absolute_normal(dir);
  // The work tree: the nearest directory at or above `dir` with a .git (a directory, or a file for
  // worktrees and submodules).
  std::vector<std::string> chain;  // abs, its parent, ... up to the work tree's root
  std::string root;
  for (fs::path p = abs;; p = p.parent_path()) {
    const std::string s = p.generic_string();
    chain.push_back(s);
    if (exists(s + "/.git")) {
      root = s;
      break;
    }
    if (p == p.parent_path()) break;
  }
  if (root.empty()) return;
  in_repo_ = true;
  auto file_in = [](const std::string& d, const char* name) { return d == "/" ? "/" + std::string(name) : d + "/" + name; };
  push_file(root, file_in(root, ".git/info/exclude"), true);
  // From the root down to the parent of `dir`; `dir` itself is entered by the walk.
  for (size_t i = chain.size(); i-- > 1;) push_file(chain[i], file_in(chain[i], ".gitignore"), false);
}

size_t IgnoreStack::enter(const std::string& dir) {
  if (!in_repo_) {
    // The walk may enter a work tree below where it started (a checkout inside a plain directory).
    const std::string abs = absolute_normal(dir);
    if (!exists(abs + "/.git")) return 0;
    in_repo_ = true;
    size_t n = push_file(abs, abs + "/.git/info/exclude", true);
    n += push_file(abs, abs + "/.gitignore", false);
    return n;
  }
  const std::string abs = absolute_normal(dir);
  size_t n = 0;
  // A nested repository (submodule, vendored checkout) has its own ignore files; its parent's do
  // not apply inside it, as in git.
  if ((levels_.empty() || levels_.back().dir != abs) && exists(abs + "/.git"))
    n += push_file(abs, abs + "/.git/info/exclude", true);
  n += push_file(abs, abs + "/.gitignore", false);
  return n;
}

void IgnoreStack::leave(size_t levels) {
  while (levels-- > 0 && !levels_.empty()) levels_.pop_back();
}

bool IgnoreStack::ignored(const std::string& path, bool is_dir) const {
  if (std::none_of(levels_.begin(), levels_.end(), [](const Level& l) { return !l.rules.empty(); })) return false;
  const std::string abs = absolute_normal(path);
  for (size_t i = levels_.size(); i-- > 0;) {
    const Level& level = levels_[i];
    std::string_view rel;
    if (below(abs, level.dir, rel))
      for (size_t k = level.rules.size(); k-- > 0;)
        if (ignore_rule_matches(level.rules[k], rel, is_dir)) return !level.rules[k].negate;
    if (level.repo_root) break;
  }
  return false;
}

}  // namespace perflint
