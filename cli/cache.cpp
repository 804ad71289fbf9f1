// The on-disk result cache (see cache.hpp).
#include "cli/cache.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "rules/registry.hpp"
#include "rules/rule.hpp"
#include "cli/serial.hpp"
#include "util/io.hpp"

namespace fs = std::filesystem;

namespace perflint {

namespace {

constexpr std::string_view kMagic = "perflint-cache 1\n";
constexpr std::string_view kPackMagic = "perflint-cache-pack 1\n";
constexpr std::string_view kBlobMagic = "perflint-cache-blob 1\n";
using serial::fnv1a;
using serial::hex;
using serial::In;
using serial::Out;

// This build: the version, and the executable's size and modification time (a rebuild with other
// rules must not read results of the old one).
const std::string& build_id() {
  static const std::string id = [] {
    std::string s = std::string("perflint ") + PERFLINT_VERSION;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      s += " " + std::to_string(fs::file_size(exe, ec));
      const auto t = fs::last_write_time(exe, ec);
      if (!ec) s += " " + std::to_string(t.time_since_epoch().count());
    }
    return s;
  }();
  return id;
}

}  // namespace

std::string serialize_result(const FileResult& r) {
  Out o;
  o.s.append(kMagic);
  o.n(r.lines), o.n(r.linted ? 1 : 0);
  o.n(r.findings.size());
  for (const Finding& f : r.findings) {
    o.str(f.rule ? f.rule->code : "");
    o.n(static_cast<uint64_t>(f.severity));
    o.span(f.span);
    o.str(f.message), o.str(f.fix_hint);
    o.n(f.notes.size());
    for (const Note& note : f.notes) {
      o.str(note.message);
      o.n(note.span ? 1 : 0);
      if (note.span) o.span(*note.span);
    }
    o.n(f.fix ? 1 : 0);
    if (f.fix) {
      o.str(f.fix->title), o.n(f.fix->safe ? 1 : 0), o.n(f.fix->edits.size());
      for (const Edit& e : f.fix->edits) o.n(e.start_byte), o.n(e.end_byte), o.str(e.replacement), o.pos(e.start), o.pos(e.end);
    }
  }
  o.n(r.errors.size());
  for (const FileError& e : r.errors) {
    o.n(static_cast<uint64_t>(e.kind)), o.str(e.message), o.n(e.position ? 1 : 0);
    if (e.position) o.pos(*e.position);
  }
  o.n(r.notices.size());
  for (const Notice& n : r.notices) {
    o.str(n.message), o.n(n.position ? 1 : 0);
    if (n.position) o.pos(*n.position);
  }
  return std::move(o.s);
}

std::optional<FileResult> deserialize_result(std::string_view data, const std::string& path) {
  if (!data.starts_with(kMagic)) return std::nullopt;
  In in{data.substr(kMagic.size())};
  FileResult r;
  r.path = path;
  r.lines = in.n32();
  r.linted = in.n() == 1;
  const uint64_t findings = in.n();
  for (uint64_t i = 0; in.ok && i < findings; ++i) {
    Finding f;
    const Rule* rule = find_rule(in.str());
    if (!rule) return std::nullopt;  // a rule this build does not have
    f.rule = &rule->info();
    const uint64_t sev = in.n();
    if (sev > static_cast<uint64_t>(Severity::Error)) return std::nullopt;
    f.severity = static_cast<Severity>(sev);
    f.path = path;
    f.span = in.span();
    f.message = in.str();
    f.fix_hint = in.str();
    const uint64_t notes = in.n();
    for (uint64_t k = 0; in.ok && k < notes; ++k) {
      Note note;
      note.message = in.str();
      if (in.n() == 1) note.span = in.span();
      f.notes.push_back(std::move(note));
    }
    if (in.n() == 1) {
      Fix fix;
      fix.title = in.str();
      fix.safe = in.n() == 1;
      const uint64_t edits = in.n();
      for (uint64_t k = 0; in.ok && k < edits; ++k) {
        Edit e;
        e.start_byte = in.n32();
        e.end_byte = in.n32();
        e.replacement = in.str();
        e.start = in.pos();
        e.end = in.pos();
        fix.edits.push_back(std::move(e));
      }
      f.fix = std::move(fix);
    }
    r.findings.push_back(std::move(f));
  }
  const uint64_t errors = in.n();
  for (uint64_t i = 0; in.ok && i < errors; ++i) {
    FileError e;
    const uint64_t kind = in.n();
    if (kind > static_cast<uint64_t>(FileError::Kind::Config)) return std::nullopt;
    e.kind = static_cast<FileError::Kind>(kind);
    e.path = path;
    e.message = in.str();
    if (in.n() == 1) e.position = in.pos();
    r.errors.push_back(std::move(e));
  }
  const uint64_t notices = in.n();
  for (uint64_t i = 0; in.ok && i < notices; ++i) {
    Notice n;
    n.path = path;
    n.message = in.str();
    if (in.n() == 1) n.position = in.pos();
    r.notices.push_back(std::move(n));
  }
  if (!in.ok || !in.s.empty()) return std::nullopt;
  return r;
}

std::string ResultCache::key(const std::string& path, const std::string& bytes, const RuleSet& rules,
                             const std::string& project_fingerprint) {
  std::error_code ec;
  std::string k = build_id();
  k += '\n';
  k += fs::absolute(path, ec).lexically_normal().string();
  k += '\n';
  for (const Rule* r : rules.rules) k.append(r->info().code).push_back(',');
  for (const auto& [code, sev] : rules.severity) k.append(code).append("=").append(to_string(sev)).push_back(',');
  k += '\n';
  k += project_fingerprint;
  k += '\n';
  // Two independent 64-bit hashes of the whole: a collision needs both.
  const uint64_t a = fnv1a(bytes, fnv1a(k));
  const uint64_t b = fnv1a(k, fnv1a(bytes, 0x9e3779b97f4a7c15ull));
  return hex(a) + hex(b);
}

std::string ResultCache::pack_path(const std::string& dir) const {
  return (fs::path(dir_) / (hex(fnv1a(dir)) + hex(fnv1a(build_id(), fnv1a(dir))) + ".pack")).string();
}

ResultCache::Pack& ResultCache::pack_for(const std::string& abs_path) {
  const std::string dir = fs::path(abs_path).parent_path().string();
  Pack& pack = packs_[dir];
  if (pack.loaded) return pack;
  pack.loaded = true;
  const FileRead read = read_whole_file(pack_path(dir), 1ull << 30);
  if (read.status != FileRead::Status::Ok || !std::string_view(read.bytes).starts_with(kPackMagic)) return pack;
  In in{std::string_view(read.bytes).substr(kPackMagic.size())};
  const uint64_t n = in.n();
  std::map<std::string, std::pair<std::string, std::string>> entries;
  for (uint64_t i = 0; in.ok && i < n; ++i) {
    std::string path = in.str(), key = in.str(), data = in.str();
    if (in.ok) entries.emplace(std::move(path), std::make_pair(std::move(key), std::move(data)));
  }
  if (in.ok && in.s.empty()) pack.entries = std::move(entries);  // a damaged pack is an empty one
  return pack;
}

std::optional<FileResult> ResultCache::load(const std::string& key, const std::string& path) {
  std::error_code ec;
  const std::string abs = fs::absolute(path, ec).lexically_normal().string();
  std::optional<FileResult> r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Pack& pack = pack_for(abs);
    if (auto it = pack.entries.find(abs); it != pack.entries.end() && it->second.first == key)
      r = deserialize_result(it->second.second, path);
  }
  ++(r ? hits_ : misses_);
  return r;
}

void ResultCache::store(const std::string& key, const std::string& path, const FileResult& result) {
  std::error_code ec;
  const std::string abs = fs::absolute(path, ec).lexically_normal().string();
  std::string data = serialize_result(result);
  std::lock_guard<std::mutex> lock(mu_);
  Pack& pack = pack_for(abs);
  pack.entries[abs] = {key, std::move(data)};
  pack.dirty = true;
}

namespace {

// Writes `bytes` to `target` through a temporary file renamed over it: a reader sees the old file or
// the new one, never half of one. False when it could not.
bool write_atomically(const std::string& target, const std::string& bytes) {
  std::error_code ec;
  std::ostringstream tmp_name;
  tmp_name << target << ".tmp." << ::getpid() << "." << std::this_thread::get_id();
  {
    std::ofstream out(tmp_name.str(), std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      out.close();
      fs::remove(tmp_name.str(), ec);
      return false;
    }
  }
  fs::rename(tmp_name.str(), target, ec);
  if (ec) fs::remove(tmp_name.str(), ec);
  return !ec;
}

}  // namespace

std::string ResultCache::blob_path(const std::string& name) const {
  return (fs::path(dir_) / (hex(fnv1a(name)) + hex(fnv1a(build_id(), fnv1a(name))) + ".facts")).string();
}

std::optional<std::string> ResultCache::load_blob(const std::string& name) {
  const FileRead read = read_whole_file(blob_path(name), 1ull << 30);
  if (read.status != FileRead::Status::Ok || !std::string_view(read.bytes).starts_with(kBlobMagic)) return std::nullopt;
  In in{std::string_view(read.bytes).substr(kBlobMagic.size())};
  const std::string build = in.str(), stored_name = in.str();
  std::string data = in.str();
  if (!in.ok || !in.s.empty() || build != build_id() || stored_name != name) return std::nullopt;
  return data;
}

void ResultCache::store_blob(const std::string& name, std::string data) {
  std::lock_guard<std::mutex> lock(mu_);
  blobs_[name] = std::move(data);
}

void ResultCache::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  bool any = !blobs_.empty();
  for (const auto& [dir, pack] : packs_) any = any || pack.dirty;
  if (!any) return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return;  // read-only tree: run without a cache, say nothing
  if (!fs::exists(fs::path(dir_) / "CACHEDIR.TAG", ec)) {
    // Tell backup tools and git that this is a cache (https://bford.info/cachedir/).
    std::ofstream(fs::path(dir_) / "CACHEDIR.TAG")
        << "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by perflint.\n";
    std::ofstream(fs::path(dir_) / ".gitignore") << "# Automatically created by perflint.\n*\n";
  }
  for (auto& [dir, pack] : packs_) {
    if (!pack.dirty) continue;
    pack.dirty = false;
    Out o;
    o.s.append(kPackMagic);
    o.n(pack.entries.size());
    for (const auto& [path, entry] : pack.entries) o.str(path), o.str(entry.first), o.str(entry.second);
    write_atomically(pack_path(dir), o.s);
  }
  for (const auto& [name, data] : blobs_) {
    Out o;
    o.s.append(kBlobMagic);
    o.str(build_id()), o.str(name), o.str(data);
    write_atomically(blob_path(name), o.s);
  }
  blobs_.clear();
}

}  // namespace perflint
