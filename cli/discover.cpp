// File discovery with POSIX calls rather than std::filesystem: we need (st_dev, st_ino) to detect
// symlink loops, d_type to avoid a stat per file on large trees, and errno for precise messages.
#include "cli/discover.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <utility>

#include "cli/config.hpp"
#include "cli/gitignore.hpp"

namespace perflint {

namespace {

namespace fs = std::filesystem;
using DirId = std::pair<dev_t, ino_t>;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string join(const std::string& dir, const std::string& name) {
  // "." is how the default path is spelled: its files print as "train.py", not "./train.py".
  if (dir == ".") return name;
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

const char* file_type_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a file or directory";
}

class Walker {
 public:
  Walker(const DiscoverOptions& options, Discovery& out) : options_(options), out_(out) {}

  void add_explicit(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      const int err = errno;
      struct stat lst {};
      if (err == ENOENT && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode))
        error(path, "broken symbolic link (its target does not exist)");
      else if (err == ELOOP)
        error(path, "too many levels of symbolic links; skipped");
      else
        error(path, std::strerror(err));
      return;
    }
    // Explicit paths honour exclude too, so that pre-commit (which passes every file) agrees with
    // a plain `perflint .` run. The root itself is never excluded.
    if (excluded(path)) return;
    if (S_ISDIR(st.st_mode)) {
      if (options_.respect_gitignore) ignores_.start(path);
      walk(path, {st.st_dev, st.st_ino});
    } else if (S_ISREG(st.st_mode)) {
      // Named explicitly: linted whatever its extension (scripts without .py exist).
      add_file(path);
    } else {
      // Reading a FIFO or a device could block forever or never end: perflint reads files only.
      error(path, std::string("not a regular file (") + file_type_name(st.st_mode) +
                      "); perflint reads regular files and directories only");
    }
  }

 private:
  void error(const std::string& path, std::string message) {
    out_.errors.push_back({FileError::Kind::Io, path, std::move(message), std::nullopt});
  }

  bool excluded(const std::string& path) const {
    return !options_.exclude.empty() && matches_any_glob(options_.exclude, path, options_.root);
  }

  bool ignored(const std::string& path, bool is_dir) const {
    return options_.respect_gitignore && ignores_.ignored(path, is_dir);
  }

  void add_file(const std::string& path) {
    if (seen_files_.insert(path).second) out_.files.push_back(path);
  }

  // Recursion depth is the directory depth on disk (bounded by PATH_MAX), never the input's.
  void walk(const std::string& dir, DirId id) {
    if (!visited_.insert(id).second) return;  // reached twice through different links: once is enough
    ancestors_.emplace_back(id, dir);
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      error(dir, std::string("cannot read directory: ") + std::strerror(errno));
      ancestors_.pop_back();
      return;
    }
    std::vector<std::pair<std::string, unsigned char>> entries;
    while (const dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      entries.emplace_back(std::move(name), e->d_type);
    }
    ::closedir(d);
    const size_t ignore_levels = options_.respect_gitignore ? ignores_.enter(dir) : 0;
    // Sorted so that errors and notices come out in a stable order.
    std::sort(entries.begin(), entries.end());

    // Directories reached through a symbolic link are walked after the real ones beside them: a
    // checkout that keeps an alias of its package (XLM's `src -> xlm`) is linted, and linked, under
    // the real name its scripts import, not under the alias that sorts first.
    std::vector<std::pair<std::string, DirId>> linked_dirs;
    for (const auto& [name, type] : entries) {
      const std::string path = join(dir, name);
      bool is_dir = type == DT_DIR;
      bool is_file = type == DT_REG;
      struct stat st {};
      mode_t special = 0;  // a FIFO, socket or device: never opened
      if (type == DT_FIFO) special = S_IFIFO;
      else if (type == DT_SOCK) special = S_IFSOCK;
      else if (type == DT_CHR) special = S_IFCHR;
      else if (type == DT_BLK) special = S_IFBLK;
      if (type == DT_LNK || type == DT_UNKNOWN || is_dir) {
        // A regular file needs no stat; links must be resolved and directories need their identity.
        if (::stat(path.c_str(), &st) != 0) {
          if (type == DT_LNK && ends_with(name, ".py"))
            out_.notices.push_back({path, "skipped: broken symbolic link"});
          continue;
        }
        is_dir = S_ISDIR(st.st_mode);
        is_file = S_ISREG(st.st_mode);
        if (!is_dir && !is_file) special = st.st_mode & S_IFMT;
      }
      if (special != 0) {
        if (ends_with(name, ".py") && !excluded(path) && !ignored(path, false))
          out_.notices.push_back({path, std::string("skipped: not a regular file (") + file_type_name(special) + ")"});
        continue;
      }
      if (is_dir) {
        if (is_skipped_directory_name(name) || excluded(path) || ignored(path, true)) continue;
        const DirId child{st.st_dev, st.st_ino};
        auto loop = std::find_if(ancestors_.begin(), ancestors_.end(),
                                 [&](const auto& a) { return a.first == child; });
        if (loop != ancestors_.end()) {
          error(path, "directory symlink loop (points back to " + loop->second + "); skipped");
          continue;
        }
        struct stat lst {};
        const bool link = type == DT_LNK || (type == DT_UNKNOWN && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode));
        if (link) linked_dirs.emplace_back(path, child);
        else walk(path, child);
      } else if (is_file && ends_with(name, ".py") && !excluded(path) && !ignored(path, false)) {
        add_file(path);
      }
    }
    for (const auto& [path, child] : linked_dirs) walk(path, child);
    ignores_.leave(ignore_levels);
    ancestors_.pop_back();
  }

  const DiscoverOptions& options_;
  Discovery& out_;
  std::set<DirId> visited_;
  std::vector<std::pair<DirId, std::string>> ancestors_;
  std::set<std::string> seen_files_;
  IgnoreStack ignores_;
};

}  // namespace

bool is_skipped_directory_name(std::string_view name) {
  return (!name.empty() && name[0] == '.') || name == "venv" || name == "node_modules" || name == "__pycache__";
}

std::string path_relative_to_root(const std::string& path, const std::string& root) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  fs::path abs = fs::path(path).is_absolute() ? fs::path(path) : cwd / path;
  abs = abs.lexically_normal();
  const fs::path base = root.empty() ? cwd : fs::path(root).lexically_normal();
  const fs::path rel = abs.lexically_relative(base);
  const std::string s = rel.generic_string();
  if (s.empty() || s == "." || s.rfind("..", 0) == 0) return {};
  return s;
}

bool matches_any_glob(const std::vector<std::string>& globs, const std::string& path, const std::string& root) {
  const std::string rel = path_relative_to_root(path, root);
  std::string base = fs::path(path).lexically_normal().filename().generic_string();
  if (base.empty()) base = fs::path(path).lexically_normal().parent_path().filename().generic_string();
  for (const auto& g : globs) {
    if (!rel.empty() && glob_match(g, rel)) return true;
    if (!base.empty() && base != "." && base != ".." && glob_match(g, base)) return true;
  }
  return false;
}

Discovery discover_files(const std::vector<std::string>& paths, const DiscoverOptions& options) {
  Discovery out;
  Walker walker(options, out);
  if (paths.empty()) {
    walker.add_explicit(".");
  } else {
    for (const auto& p : paths) walker.add_explicit(p);
  }
  return out;
}

}  // namespace perflint
