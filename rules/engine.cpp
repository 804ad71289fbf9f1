// Engine: one parse, one model walk, dispatch by node kind, central suppression, stable order.
#include "rules/engine.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <unordered_map>

#include "parser/model.hpp"
#include "rules/registry.hpp"
#include "rules/suppression.hpp"

namespace perflint {

bool RuleSet::enabled(std::string_view code) const {
  return std::any_of(rules.begin(), rules.end(), [&](const Rule* r) { return r->info().code == code; });
}

RuleSet make_rule_set(const std::vector<std::string>& select, const std::vector<std::string>& ignore,
                      const std::map<std::string, Severity, std::less<>>& severity) {
  RuleSet set;
  set.severity = severity;
  for (const auto& rule : all_rules()) {
    const RuleInfo& info = rule->info();
    bool on = false;
    if (select.empty()) {
      on = std::find(info.tags.begin(), info.tags.end(), "opt-in") == info.tags.end();
    } else {
      for (const auto& s : select) {
        // "ALL" and prefixes do not turn on opt-in rules; naming the rule does.
        const bool opt_in = std::find(info.tags.begin(), info.tags.end(), "opt-in") != info.tags.end();
        const bool exact = find_rule(s) == rule.get();
        if (selector_matches(s, info) && (!opt_in || exact)) on = true;
      }
    }
    for (const auto& s : ignore)
      if (selector_matches(s, info)) on = false;
    if (on) set.rules.push_back(rule.get());
  }
  return set;
}

namespace {

// The first ERROR or MISSING node in document order, found without recursion.
TSNode first_syntax_error(TSNode root) {
  TSNode found{};
  bool done = false;
  ts::walk(root, [&](TSNode n) {
    if (done) return false;
    if (!ts_node_has_error(n)) return false;
    if (ts_node_is_error(n) || ts_node_is_missing(n)) {
      found = n;
      done = true;
      return false;
    }
    return true;
  });
  return found;
}

// The kinds of each registered rule, asked once (kinds() builds a vector); nullptr for another rule.
const std::vector<std::string_view>* registered_kinds(const Rule* rule) {
  static const std::vector<std::pair<const Rule*, std::vector<std::string_view>>> kinds = [] {
    std::vector<std::pair<const Rule*, std::vector<std::string_view>>> out;
    for (const auto& r : all_rules()) out.emplace_back(r.get(), r->kinds());
    return out;
  }();
  for (const auto& [r, k] : kinds)
    if (r == rule) return &k;
  return nullptr;
}

const std::vector<std::string>& dispatch_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::set<std::string> all{"comment"};
    for (const auto& rule : all_rules())
      for (auto k : rule->kinds()) all.emplace(k);
    return std::vector<std::string>(all.begin(), all.end());
  }();
  return kinds;
}

}  // namespace

FileResult lint_buffer(const std::string& path, std::string bytes, const RuleSet& rules, ts::Parser& parser,
                       ProjectContext* project) {
  FileResult result;
  result.path = path;
  auto source = SourceFile::from_bytes(path, std::move(bytes));
  if (!source) {
    // from_bytes already prefixes the path and position; keep the message short here.
    const std::string& m = source.error().message;
    result.errors.push_back({FileError::Kind::Io, path, m.substr(m.find(": ") + 2), std::nullopt});
    return result;
  }
  const SourceFile& src = *source;
  result.lines = src.line_count();
  ts::Tree tree = parser.parse(src.text());
  if (!tree) {
    result.errors.push_back({FileError::Kind::Io, path, "tree-sitter could not parse the file", std::nullopt});
    return result;
  }
  result.linted = true;
  const TSNode root = tree.root();
  if (ts_node_has_error(root)) {
    TSNode err = first_syntax_error(root);
    const uint32_t at = ts_node_is_null(err) ? 0 : ts_node_start_byte(err);
    const Position p = src.position(at);
    std::string what = !ts_node_is_null(err) && ts_node_is_missing(err)
                           ? "syntax error: missing `" + std::string(ts::kind(err)) + "`"
                           : "syntax error";
    result.errors.push_back({FileError::Kind::Syntax, path,
                             what + " (the rest of the file was still linted)", p});
  }

  Model model(src, root, dispatch_kinds(), project);
  std::vector<Finding> findings;
  Emitter emitter(src, findings);
  // CUDA use in the file, or in the sibling script that imports its step code.
  // Or in the file whose step runs this one's functions (another file's training loop).
  const bool cuda = model.uses_cuda() || model.cuda_importer() != nullptr || !model.cuda_step_path().empty();
  std::vector<const Rule*> ran;
  std::vector<std::pair<uint32_t, uint32_t>> comments;
  for (TSNode c : model.nodes_of_kind("comment")) comments.emplace_back(ts_node_start_byte(c), ts_node_end_byte(c));
  const std::vector<Suppression> suppressions = parse_suppressions(src, comments);
  const Rule* const unused_rule = find_rule("PFL001");
  const bool report_unused =
      unused_rule && std::find(rules.rules.begin(), rules.rules.end(), unused_rule) != rules.rules.end();
  // PFL001 must know whether a suppression would match: the rules a suppression names also run
  // when they are not selected ("shadow" rules), and their findings only mark suppressions used.
  std::vector<const Rule*> to_run = rules.rules;
  std::set<const RuleInfo*> shadow;
  if (report_unused)
    for (const Suppression& sup : suppressions)
      for (const std::string& c : sup.codes)
        if (const Rule* r = find_rule(c); r && r != unused_rule &&
                                          std::find(to_run.begin(), to_run.end(), r) == to_run.end()) {
          to_run.push_back(r);
          shadow.insert(&r->info());
        }
  // The call behind each node of the "call" list, for Rule::wants.
  const std::vector<TSNode>& call_nodes = model.nodes_of_kind("call");
  std::vector<const CallInfo*> call_infos;
  call_infos.reserve(call_nodes.size());
  for (TSNode n : call_nodes) call_infos.push_back(model.call(n));
  std::vector<TSNode> nodes, wanted_calls, merging;  // reused across rules
  const auto by_start = [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); };
  for (const Rule* rule : to_run) {
    const RuleInfo& info = rule->info();
    if (info.cuda_only && !cuda) continue;
    ran.push_back(rule);
    emitter.set_rule(&info);
    const size_t before = findings.size();
    std::vector<std::string_view> own_kinds;
    const std::vector<std::string_view>* kinds_ptr = registered_kinds(rule);
    if (!kinds_ptr) kinds_ptr = &(own_kinds = rule->kinds());
    // A rule is handed its kinds in document order (each per-kind list already is: pre-order), ties
    // in the order it lists its kinds, and of the calls only those it wants.
    nodes.clear();
    for (auto k : *kinds_ptr) {
      const std::vector<TSNode>* of_kind = &model.nodes_of_kind(k);
      if (k == "call") {
        wanted_calls.clear();
        for (size_t i = 0; i < call_nodes.size(); ++i)
          if (!call_infos[i] || rule->wants(*call_infos[i])) wanted_calls.push_back(call_nodes[i]);
        of_kind = &wanted_calls;
      }
      merging.clear();
      std::merge(nodes.begin(), nodes.end(), of_kind->begin(), of_kind->end(), std::back_inserter(merging), by_start);
      nodes.swap(merging);
    }
    for (TSNode n : nodes) rule->check(n, model, emitter);
    if (auto it = rules.severity.find(info.code); it != rules.severity.end())
      for (size_t i = before; i < findings.size(); ++i) findings[i].severity = it->second;
  }

  // A module's own `if __name__ == "__main__":` block (a self-test: awd-lstm's splitcross.py) runs
  // only when the module is the script, never for the importer whose CUDA the file's rules took:
  // with no CUDA of its own, the block's code is no CUDA code. (Not when the device comes from what
  // the file itself imports or runs, `cuda_imported`: then the block is the script's own run;
  // BicycleGAN's train.py, whose model classes pick the device.)
  if (cuda && !model.uses_cuda() && !model.cuda_imported())
    for (TSNode st : ts::named_children(root)) {
      if (ts::kind(st) != "if_statement") continue;
      const std::string_view cond = model.text(ts::field(st, "condition"));
      if (cond.find("__name__") == std::string_view::npos || cond.find("__main__") == std::string_view::npos) continue;
      const uint32_t from = ts_node_start_byte(st), to = ts_node_end_byte(st);
      std::erase_if(findings, [&](const Finding& f) {
        return f.rule && f.rule->cuda_only && f.span.start_byte >= from && f.span.start_byte < to;
      });
    }
  apply_suppressions(suppressions, findings);
  if (!shadow.empty()) std::erase_if(findings, [&](const Finding& f) { return shadow.count(f.rule) > 0; });
  const std::vector<UnknownCode> unknown = unknown_codes(suppressions);
  if (report_unused) {
    emitter.set_rule(&unused_rule->info());
    auto severity = [&](Finding& f) {
      if (auto it = rules.severity.find(unused_rule->info().code); it != rules.severity.end()) f.severity = it->second;
    };
    for (const auto& s : unused_suppressions(suppressions)) {
      // Only when every rule it names ran on this file: otherwise "unused" means "not checked"
      // (a CUDA-only rule on a CPU script; a prefix selector). Unknown codes are reported below.
      const bool all_ran = std::all_of(s.codes.begin(), s.codes.end(), [&](const std::string& c) {
        const Rule* r = find_rule(c);
        return r && std::find(ran.begin(), ran.end(), r) != ran.end();
      });
      if (!all_ran) continue;
      std::string what;
      for (const auto& c : s.codes) what += (what.empty() ? "" : ", ") + c;
      Finding& f = emitter.report(s.span, "suppression of " + what + " matches no finding on this line",
                                  "remove the suppression comment");
      if (s.file_level) f.message = "file-level suppression of " + what + " matches no finding in this file";
      severity(f);
    }
    for (const auto& u : unknown) {
      const std::string best = rule_suggestion(u.code);
      Finding& f = emitter.report(u.suppression->span, "suppression names '" + u.code + "', which is no perflint rule",
                                  best.empty() ? "fix the code (`perflint rules` lists them) or remove it"
                                               : "did you mean '" + best + "'?");
      severity(f);
    }
  } else {
    // A typo in a suppression silently suppresses nothing: say so (stderr), as ruff does.
    for (const auto& u : unknown) {
      const std::string best = rule_suggestion(u.code);
      result.notices.push_back({path,
                                "unknown rule code '" + u.code + "' in `" + (u.suppression->noqa ? "# noqa" : "# perflint: ignore") +
                                    "`: it suppresses nothing" + (best.empty() ? "" : " (did you mean '" + best + "'?)"),
                                u.suppression->span.start});
    }
  }

  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.span.start.line != b.span.start.line) return a.span.start.line < b.span.start.line;
    if (a.span.start.column != b.span.start.column) return a.span.start.column < b.span.start.column;
    return a.rule->code < b.rule->code;
  });
  // One finding per rule and place.
  findings.erase(std::unique(findings.begin(), findings.end(),
                             [](const Finding& a, const Finding& b) {
                               return a.rule == b.rule && a.span.start_byte == b.span.start_byte &&
                                      a.span.end_byte == b.span.end_byte;
                             }),
                 findings.end());
  result.findings = std::move(findings);
  return result;
}

}  // namespace perflint
