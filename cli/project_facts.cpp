// The project linker's facts kept between runs in the result cache (see FileProjectContext::use_cache):
// per project root, the import graph, the linker's step entries and the files that assign an
// attribute, with the state of the root they were computed from.
#include <filesystem>

#include "cli/cache.hpp"
#include "cli/project_files.hpp"
#include "cli/serial.hpp"

namespace fs = std::filesystem;

namespace perflint {

namespace {

constexpr std::string_view kFactsVersion = "project-facts 14";

std::string blob_name(const std::string& root) { return std::string(kFactsVersion) + " " + root; }

void write_strings(serial::Out& o, const std::vector<std::string>& v) {
  o.n(v.size());
  for (const auto& x : v) o.str(x);
}

std::vector<std::string> read_strings(serial::In& in) {
  std::vector<std::string> v;
  const uint64_t n = in.n();
  for (uint64_t i = 0; in.ok && i < n; ++i) v.push_back(in.str());
  return v;
}

void write_entry(serial::Out& o, const StepEntry& e) {
  o.str(e.function), o.str(e.path);
  o.n(e.cuda), o.n(e.positional), o.n(e.opaque_args), o.n(e.host_args), o.n(e.default_device);
  write_strings(o, e.keywords);
  o.n(e.loss_positional.size());
  for (uint32_t p : e.loss_positional) o.n(p);
  write_strings(o, e.loss_keywords);
  o.n(e.keyword_truths.size());
  for (const auto& [k, truth] : e.keyword_truths) o.str(k), o.n(truth);
  o.n(e.non_none_positional.size());
  for (uint32_t p : e.non_none_positional) o.n(p);
  write_strings(o, e.non_none_keywords);
  o.n(e.arg_classes.size());
  for (const auto& [k, cls] : e.arg_classes) o.str(k), o.str(cls);
  o.n(e.arg_functions.size());
  for (const auto& [k, fn] : e.arg_functions) o.str(k), o.str(fn);
  o.n(e.batch_positional.size());
  for (uint32_t p : e.batch_positional) o.n(p);
  write_strings(o, e.batch_keywords);
}

StepEntry read_entry(serial::In& in) {
  StepEntry e;
  e.function = in.str();
  e.path = in.str();
  e.cuda = in.n() != 0;
  e.positional = in.n32();
  e.opaque_args = in.n() != 0;
  e.host_args = in.n() != 0;
  e.default_device = in.n() != 0;
  e.keywords = read_strings(in);
  const uint64_t losses = in.n();
  for (uint64_t i = 0; in.ok && i < losses; ++i) e.loss_positional.push_back(in.n32());
  e.loss_keywords = read_strings(in);
  const uint64_t truths = in.n();
  for (uint64_t i = 0; in.ok && i < truths; ++i) {
    std::string k = in.str();
    e.keyword_truths.emplace_back(std::move(k), in.n() != 0);
  }
  const uint64_t set = in.n();
  for (uint64_t i = 0; in.ok && i < set; ++i) e.non_none_positional.push_back(in.n32());
  e.non_none_keywords = read_strings(in);
  const uint64_t classes = in.n();
  for (uint64_t i = 0; in.ok && i < classes; ++i) {
    std::string k = in.str();
    e.arg_classes.emplace_back(std::move(k), in.str());
  }
  const uint64_t functions = in.n();
  for (uint64_t i = 0; in.ok && i < functions; ++i) {
    std::string k = in.str();
    e.arg_functions.emplace_back(std::move(k), in.str());
  }
  const uint64_t batches = in.n();
  for (uint64_t i = 0; in.ok && i < batches; ++i) e.batch_positional.push_back(in.n32());
  e.batch_keywords = read_strings(in);
  return e;
}

}  // namespace

void FileProjectContext::load_facts(const std::string& root) {
  auto [it, fresh] = facts_.try_emplace(root);
  if (!fresh) return;
  // The state: every .py file under the root, with its size and modification time. A root too big
  // to walk (no files) has no facts worth keeping.
  const std::vector<std::string>& files = root_files(root);
  if (files.empty()) return;
  std::string& state = it->second.state;
  std::error_code ec;
  for (const std::string& f : files) {
    const auto size = fs::file_size(f, ec);
    state.append(f).append(" ").append(ec ? "?" : std::to_string(size));
    const auto time = fs::last_write_time(f, ec);
    state.append(" ").append(ec ? "?" : std::to_string(time.time_since_epoch().count())).push_back('\n');
  }
  const std::optional<std::string> blob = store_->load_blob(blob_name(root));
  if (!blob) return;
  serial::In in{*blob};
  if (in.str() != state || !in.ok) return;  // something changed: computed afresh, saved again
  std::optional<ImportGraph> graph;
  if (in.n() != 0) {
    graph.emplace();
    graph->root = root;
    graph->usable = in.n() != 0;
    const uint64_t imports = in.n();
    for (uint64_t i = 0; in.ok && i < imports; ++i) {
      std::string file = in.str();
      graph->imports[std::move(file)] = read_strings(in);
    }
    for (auto& f : read_strings(in)) graph->has_step_text.insert(std::move(f));
    const uint64_t methods = in.n();
    for (uint64_t i = 0; in.ok && i < methods; ++i) {
      std::string name = in.str();
      graph->step_method_files[std::move(name)] = read_strings(in);
    }
  }
  std::optional<Linked> linked;
  if (in.n() != 0) {
    linked.emplace();
    linked->started = true;
    const uint64_t files_with_entries = in.n();
    for (uint64_t i = 0; in.ok && i < files_with_entries; ++i) {
      std::vector<StepEntry>& entries = linked->entries[in.str()];
      const uint64_t n = in.n();
      for (uint64_t k = 0; in.ok && k < n; ++k) entries.push_back(read_entry(in));
    }
  }
  std::map<std::string, std::vector<Assigner>> assigners;
  const uint64_t attributes = in.n();
  for (uint64_t i = 0; in.ok && i < attributes; ++i) {
    std::vector<Assigner>& found = assigners[root + '\0' + in.str()];
    const uint64_t n = in.n();
    for (uint64_t k = 0; in.ok && k < n; ++k) {
      Assigner a;
      a.path = in.str();
      a.module = in.str();
      a.imports = read_strings(in);
      found.push_back(std::move(a));
    }
  }
  if (!in.ok || !in.s.empty()) return;  // damaged: as if absent
  if (graph) graphs_.emplace(root, std::move(*graph));
  if (linked) linked_roots_.emplace(root, std::move(*linked));
  for (auto& [key, found] : assigners) assigners_.emplace(key, std::move(found));
}

void FileProjectContext::mark_computed(const std::string& root) {
  if (auto it = facts_.find(root); it != facts_.end()) it->second.dirty = true;
}

void FileProjectContext::save_facts() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!store_) return;
  for (const auto& [root, facts] : facts_) {
    if (!facts.dirty || facts.state.empty()) continue;
    serial::Out o;
    o.str(facts.state);
    const auto g = graphs_.find(root);
    o.n(g != graphs_.end());
    if (g != graphs_.end()) {
      o.n(g->second.usable);
      o.n(g->second.imports.size());
      for (const auto& [file, targets] : g->second.imports) o.str(file), write_strings(o, targets);
      write_strings(o, std::vector<std::string>(g->second.has_step_text.begin(), g->second.has_step_text.end()));
      o.n(g->second.step_method_files.size());
      for (const auto& [name, files] : g->second.step_method_files) o.str(name), write_strings(o, files);
    }
    const auto l = linked_roots_.find(root);
    const bool linked = l != linked_roots_.end() && l->second.started;
    o.n(linked);
    if (linked) {
      o.n(l->second.entries.size());
      for (const auto& [file, entries] : l->second.entries) {
        o.str(file);
        o.n(entries.size());
        for (const StepEntry& e : entries) write_entry(o, e);
      }
    }
    const std::string prefix = root + '\0';
    std::vector<std::pair<std::string, const std::vector<Assigner>*>> attributes;
    for (auto a = assigners_.lower_bound(prefix); a != assigners_.end() && a->first.starts_with(prefix); ++a)
      attributes.emplace_back(a->first.substr(prefix.size()), &a->second);
    o.n(attributes.size());
    for (const auto& [attribute, found] : attributes) {
      o.str(attribute);
      o.n(found->size());
      for (const Assigner& a : *found) o.str(a.path), o.str(a.module), write_strings(o, a.imports);
    }
    store_->store_blob(blob_name(root), std::move(o.s));
  }
}

}  // namespace perflint
