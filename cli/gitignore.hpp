// .gitignore support for discovery, as git reads it (gitignore(5)): inside a git work tree, the
// repository's .git/info/exclude and every .gitignore from the repository root down to a directory
// decide whether its entries are searched. Deeper files win over shallower ones, later lines over
// earlier ones; `!pattern` re-includes; `dir/` matches directories only; a pattern with a `/` before
// its end is anchored at its .gitignore's directory, one without matches a name at any depth.
// A nested repository (a directory with its own .git) starts afresh. Outside a work tree nothing is
// ignored. The user's global excludes file (core.excludesFile) is not read.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace perflint {

struct IgnoreRule {
  std::string pattern;   // without the `!`, the trailing `/` and a leading `/`
  bool negate = false;
  bool dir_only = false;
  bool anchored = false;
};

// The rules of one ignore file, in file order. Comments, blank lines and unsupported lines are
// dropped; trailing unescaped blanks are removed; `\#` and `\!` start a literal pattern.
std::vector<IgnoreRule> parse_gitignore(std::string_view text);

// Whether `rule` matches `rel` (relative to the ignore file's directory, '/'-separated).
bool ignore_rule_matches(const IgnoreRule& rule, std::string_view rel, bool is_dir);

// The ignore files in force along a directory walk: enter() a directory before listing it,
// leave() after; ignored() answers for its entries.
class IgnoreStack {
 public:
  // Called for the directory the walk starts from (a path as given): finds its work tree and loads
  // .git/info/exclude and the .gitignore files of every directory above it inside the tree.
  void start(const std::string& dir);
  // Pushes `dir`'s own .gitignore (and starts afresh at a nested repository). Returns how many
  // levels it pushed, for leave().
  size_t enter(const std::string& dir);
  void leave(size_t levels);
  // `path` is an entry of the directory entered last.
  bool ignored(const std::string& path, bool is_dir) const;

 private:
  struct Level {
    std::string dir;  // absolute, lexically normal
    std::vector<IgnoreRule> rules;
    bool repo_root = false;  // the walk up stops here: outer repositories do not apply
  };
  size_t push_file(const std::string& abs_dir, const std::string& file, bool repo_root);
  std::vector<Level> levels_;
  bool in_repo_ = false;
};

}  // namespace perflint
