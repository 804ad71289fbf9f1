// Semantic model (minimal first cut: node index by kind; the rest lands next).
#include "parser/model.hpp"

#include "parser/ts.hpp"

namespace perflint {

struct Model::Impl {
  const SourceFile& src;
  std::unordered_map<std::string, std::vector<TSNode>> by_kind;
  std::vector<CallInfo> calls;
  std::vector<DataLoaderInfo> loaders;
  std::vector<TSNode> step_loops;
  explicit Impl(const SourceFile& s) : src(s) {}
};

Model::Model(const SourceFile& source, TSNode root, const std::vector<std::string>& wanted)
    : impl_(std::make_unique<Impl>(source)) {
  for (const auto& k : wanted) impl_->by_kind[k];
  ts::walk(root, [&](TSNode n) {
    auto it = impl_->by_kind.find(std::string(ts::kind(n)));
    if (it != impl_->by_kind.end()) it->second.push_back(n);
    return true;
  });
}
Model::~Model() = default;

const SourceFile& Model::source() const { return impl_->src; }
std::string_view Model::text(TSNode n) const { return ts::text(n, impl_->src.text()); }
const std::vector<TSNode>& Model::nodes_of_kind(std::string_view kind) const {
  static const std::vector<TSNode> none;
  auto it = impl_->by_kind.find(std::string(kind));
  return it == impl_->by_kind.end() ? none : it->second;
}
std::string Model::qualname(TSNode) const { return {}; }
const CallInfo* Model::call(TSNode) const { return nullptr; }
const std::vector<CallInfo>& Model::calls() const { return impl_->calls; }
Value Model::evaluate(TSNode) const { return {}; }
const ArgOption* Model::arg_option(std::string_view) const { return nullptr; }
bool Model::imports(std::string_view) const { return false; }
TSNode Model::last_import() const { return {}; }
TSNode Model::first_import_of(std::string_view) const { return {}; }
bool Model::has_step_loop() const { return false; }
const std::vector<TSNode>& Model::step_loops() const { return impl_->step_loops; }
StepContext Model::step_context(TSNode) const { return {}; }
bool Model::is_batch_expression(TSNode) const { return false; }
const DataLoaderInfo* Model::loader_of_batch(TSNode) const { return nullptr; }
const std::vector<DataLoaderInfo>& Model::dataloaders() const { return impl_->loaders; }
const DataLoaderInfo* Model::dataloader(TSNode) const { return nullptr; }
bool Model::uses_cuda() const { return false; }
TSNode Model::cuda_evidence() const { return {}; }
TSNode Model::enclosing(TSNode, std::string_view) const { return {}; }
bool Model::under_condition(TSNode, TSNode*) const { return false; }

std::optional<bool> Value::truthy() const { return std::nullopt; }
std::optional<long long> Value::as_int() const { return std::nullopt; }
std::string Value::repr() const { return "?"; }
const Argument* CallInfo::keyword(std::string_view) const { return nullptr; }
TSNode CallInfo::arg(std::string_view, int) const { return {}; }

}  // namespace perflint
