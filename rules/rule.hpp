// The rule interface: static metadata, the node kinds a rule wants, and a const `check` that judges
// one candidate node with the semantic model (STYLE.md rules 1, 3; ast-grep's "rules declare interests").
#pragma once
#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.hpp"

namespace perflint {

class Model;
struct CallInfo;

struct RuleInfo {
  std::string_view code;      // PFL101
  std::string_view name;      // dataloader-main-process
  std::string_view category;  // data-loading, host-sync, debug-left-on, precision, memory, ...
  Severity severity;          // default severity
  std::string_view summary;   // one line: SARIF shortDescription, `perflint rules`
  bool cuda_only = false;     // never fires on a script that does not use CUDA
  std::vector<std::string_view> tags;
};

// Collects findings for one rule on one file; fills code, path, positions.
class Emitter {
 public:
  Emitter(const SourceFile& source, std::vector<Finding>& sink) : source_(source), sink_(sink) {}
  void set_rule(const RuleInfo* rule) { rule_ = rule; }
  Span span(TSNode node) const;
  Span span(uint32_t start_byte, uint32_t end_byte) const;
  // Adds a finding at `node`; the returned reference stays valid until the next report().
  Finding& report(TSNode node, std::string message, std::string fix_hint);
  Finding& report(const Span& span, std::string message, std::string fix_hint);
  Note note(TSNode node, std::string message) const { return Note{std::move(message), span(node)}; }
  const SourceFile& source() const { return source_; }

 private:
  const SourceFile& source_;
  std::vector<Finding>& sink_;
  const RuleInfo* rule_ = nullptr;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  // Node kinds (tree-sitter type names) this rule is handed, in document order.
  virtual std::vector<std::string_view> kinds() const = 0;
  // The calls this rule can judge at all, by a cheap first test on what the model resolved (the
  // qualified name, the method, a keyword): the engine hands check() no other call node. It must
  // hold for every call check() reports on. Default: every call.
  virtual bool wants(const CallInfo&) const { return true; }
  virtual void check(TSNode node, const Model& model, Emitter& out) const = 0;
};

}  // namespace perflint
