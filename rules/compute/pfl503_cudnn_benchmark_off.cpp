// PFL503 cudnn-benchmark-off: a CUDA conv model trained without cuDNN autotuning. With
// `torch.backends.cudnn.benchmark = True` cuDNN times its convolution algorithms once per input
// shape and keeps the fastest; without it a heuristic picks one, often several times slower.
#include <cctype>
#include <string>

#include "parser/model.hpp"
#include "parser/text_util.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/compute/model_util.hpp"

namespace perflint {
namespace {

constexpr std::string_view kBenchmark = "torch.backends.cudnn.benchmark";
constexpr std::string_view kDeterministic = "torch.backends.cudnn.deterministic";
constexpr std::string_view kEnabled = "torch.backends.cudnn.enabled";
constexpr std::string_view kMessage =
    "cuDNN autotuning is off: each convolution runs whatever algorithm cuDNN's heuristic picks; with "
    "`torch.backends.cudnn.benchmark = True` cuDNN times the candidates once per input shape and reuses the "
    "fastest";
constexpr std::string_view kFix = "set `torch.backends.cudnn.benchmark = True` once, before the training loop";
constexpr std::string_view kShapes =
    "assumes the input shapes are the same every step (variable-size inputs re-tune for each new shape)";

TSNode rightmost(TSNode assignment) {
  TSNode right = ts::field(assignment, "right");
  while (ts::is(right, "assignment")) right = ts::field(right, "right");  // a = b = True
  return right;
}

// An R-CNN by name: `FasterRCNNVGG16`, `MaskRCNN`, `fasterrcnn_resnet50_fpn`, `rcnn.Net`; not a
// character CNN (`CharCNN`, `super(CharCNN, self).__init__()`: Text-Classification-Models-Pytorch,
// held-out round 46).
bool names_rcnn(std::string_view f) {
  if (f.find("RCNN") != std::string_view::npos) return true;
  for (size_t at = f.find("rcnn"); at != std::string_view::npos; at = f.find("rcnn", at + 1)) {
    const std::string_view before = f.substr(0, at);
    if (before.empty() || !std::isalpha(static_cast<unsigned char>(before.back()))) return true;
    for (std::string_view family : {"fast", "faster", "mask", "keypoint", "cascade"})
      if (before.ends_with(family)) return true;
  }
  return false;
}

// Signs that the user chose reproducibility, or that input shapes vary: benchmark would not pay.
bool benchmark_unwanted(const Model& model) {
  for (TSNode a : model.nodes_of_kind("assignment")) {
    const std::string q = model.qualname(ts::field(a, "left"));
    if (q == kDeterministic && model.evaluate(rightmost(a)).truthy() != false) return true;
    // cuDNN switched off, or on only by a flag (`cudnn.enabled = args.enable_cudnn`, default False:
    // Kaixhin/Rainbow): autotuning is not the question.
    if (q == kEnabled && model.evaluate(rightmost(a)).truthy() != true) return true;
  }
  for (const auto& c : model.calls()) {
    if (c.qualname == "torch.use_deterministic_algorithms") {
      if (model.evaluate(c.arg("mode", 0)).truthy() != false) return true;
    }
    // Variable-size images (detection) or sequences padded per batch re-tune for every new shape.
    if (is_detection_model(c.qualname) || c.qualname == "torch.nn.utils.rnn.pad_sequence") return true;
    // Batches grouped by aspect ratio (`AspectRatioBasedSampler`, torchvision's `GroupedBatchSampler`
    // with `create_aspect_ratio_groups`: pytorch-retinanet, held-out round 12), or an R-CNN of the
    // project (`FasterRCNNVGG16()`: the family resizes each image by its shorter side; round 13):
    // images keep their aspect, so shapes differ from batch to batch.
    const std::string_view f = model.text(c.function);
    for (std::string_view cue : {"aspectratio", "aspect_ratio", "GroupedBatchSampler"})
      if (icontains(f, cue)) return true;
    if (names_rcnn(f)) return true;
    // Lightning's Trainer(benchmark=...) sets the flag itself.
    if (c.keyword("benchmark") && (c.qualname.starts_with("lightning") || c.qualname.starts_with("pytorch_lightning")))
      return true;
  }
  return false;
}

// A model built from a registry of project classes (`net_G_models[FLAGS.arch](z_dim)` with
// `net_G_models = {"cnn32": models.Generator32, "cnn48": models.Generator48}`: pytorch-gan-collections,
// held-out round 28): where the first class builds convolutions when every class of the dict does.
std::string registry_conv_evidence(const Model& model, const CallInfo& c) {
  const TSNode f = c.function;
  if (!ts::is(f, "subscript")) return {};
  const TSNode reg = ts::field(f, "value");
  if (!ts::is(reg, "identifier")) return {};
  const std::vector<TSNode> values = model.visible_values(reg, model.text(reg));
  if (values.size() != 1 || !ts::is(values.front(), "dictionary")) return {};
  std::string first;
  for (TSNode pair : ts::named_children(values.front())) {
    if (!ts::is(pair, "pair")) return {};
    const std::string where = model.project_class_conv_evidence(ts::field(pair, "value"));
    if (where.empty()) return {};
    if (first.empty()) first = where;
  }
  return first;
}

class RulePFL503 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL503", "cudnn-benchmark-off", "compute", Severity::Warning,
                            "Convolutional model on CUDA without torch.backends.cudnn.benchmark=True", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"module"}; }

  void check(TSNode, const Model& model, Emitter& out) const override {
    if (!model.has_step_loop()) return;
    const CallInfo* conv = first_call(model, is_conv_call);
    bool conv_switched_off = false;  // the only convolutions are in a branch the defaults switch off
    // Or the model is a class of another file of the project that builds convolutions
    // (`from model import Generator`; stylegan2-pytorch, minDiffusion's UNet).
    std::string elsewhere;
    // (The first one that runs with the defaults: `if args.refine: model = Net(cfg=...)` / `else:
    // model = Net()` is the else branch's; network-slimming, held-out round 34.)
    if (!conv) {
      const CallInfo* switched = nullptr;
      std::string switched_where;
      for (const CallInfo& c : model.calls()) {
        // An evaluator's network (`self.eval_wrapper = EvaluatorMDMWrapper(...)`: motion-diffusion-
        // model's feature extractor for metrics) is not the model the step trains.
        if (icontains(model.text(c.function), "eval")) continue;
        if (!(elsewhere = model.project_conv_evidence(c)).empty() || !(elsewhere = registry_conv_evidence(model, c)).empty()) {
          if (!model.switched_off(c.node)) {
            conv = &c;
            break;
          }
          if (!switched) switched = &c, switched_where = elsewhere;
        }
      }
      if (!conv && switched) conv = switched, elsewhere = switched_where, conv_switched_off = true;
    }
    if (!conv) return;
    TSNode disabled{};
    for (TSNode a : model.nodes_of_kind("assignment")) {
      const TSNode left = ts::field(a, "left");
      // `cudnn.benchmark, cudnn.deterministic = True, False` (a seed helper): one target of several,
      // its value picked at run time as far as this rule can tell: the user decides.
      const std::string_view kind = ts::kind(left);
      if (kind == "pattern_list" || kind == "tuple_pattern" || kind == "tuple") {
        for (uint32_t i = 0; i < ts_node_named_child_count(left); ++i)
          if (model.qualname(ts_node_named_child(left, i)) == kBenchmark) return;
        continue;
      }
      if (model.qualname(left) != kBenchmark) continue;
      // Only in a branch the defaults switch off (`if self.benchmark_flag:` with --benchmark_flag False:
      // UGATIT, held-out round 53): a default launch runs without it. Not when the convolutions are
      // themselves in a switched-off branch: then the two switches may go together.
      if (!conv_switched_off && model.switched_off(a)) continue;
      // True, or a value only known at run time (`= args.benchmark`): the user decides.
      if (model.evaluate(rightmost(a)).truthy() != false) return;
      if (ts_node_is_null(disabled)) disabled = a;
    }
    if (benchmark_unwanted(model)) return;
    // Set in the entry script or a seed helper of the project: on for the whole run (or a choice
    // made there). The flag is global, so this file not setting it says nothing.
    if (ts_node_is_null(disabled) && !model.project_assigns("cudnn.benchmark").empty()) return;
    const std::string conv_line = std::to_string(out.source().position(ts_node_start_byte(conv->node)).line);
    if (!ts_node_is_null(disabled)) {
      const Value v = model.evaluate(rightmost(disabled));
      Finding& f = out.report(disabled,
                              "`" + std::string(model.text(disabled)) + "` turns cuDNN autotuning off: " +
                                  std::string(kMessage.substr(kMessage.find("each convolution"))),
                              "set it to `True` (reproducibility is `torch.backends.cudnn.deterministic = True`'s job)");
      if (auto n = origin_note(out, "benchmark", v)) f.notes.push_back(*n);
      f.notes.push_back(out.note(conv->node, elsewhere.empty() ? "the model uses convolutions (line " + conv_line + ")"
                                                               : "the model's class builds convolutions (" + elsewhere + ")"));
      f.notes.push_back(Note{std::string(kShapes), std::nullopt});
      return;
    }
    Finding& f = out.report(conv->node, std::string(kMessage), std::string(kFix));
    if (!elsewhere.empty())
      f.notes.push_back(Note{"`" + std::string(model.text(conv->function)) + "` builds convolutions (" + elsewhere + ")",
                             std::nullopt});
    f.notes.push_back(Note{std::string(kShapes), std::nullopt});
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl503() { return std::make_unique<RulePFL503>(); }

}  // namespace perflint
