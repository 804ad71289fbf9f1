// Convolution and memory-format detection for the compute rules.
#include "rules/compute/model_util.hpp"

#include "parser/ts.hpp"

namespace perflint {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// torchvision.models.* that are convolutional networks. Vision transformers (vit_*, swin*, mvit*)
// carry a single patch-embedding conv: not a conv model for these rules. Weights enums and
// registry helpers (`ResNet50_Weights`, `get_model_weights`) are not models.
bool is_torchvision_cnn(std::string_view q) {
  if (!starts_with(q, "torchvision.models.")) return false;
  std::string_view name = q.substr(q.rfind('.') + 1);
  if (name.empty() || name.find("Weights") != std::string_view::npos) return false;
  if (starts_with(name, "vit_") || starts_with(name, "swin") || starts_with(name, "mvit") ||
      starts_with(name, "get_") || starts_with(name, "list_"))
    return false;
  return true;
}

}  // namespace

bool is_conv_call(std::string_view q) {
  if (starts_with(q, "torch.nn.Conv") || starts_with(q, "torch.nn.LazyConv") || starts_with(q, "torch.nn.modules.conv.")) return true;
  if (starts_with(q, "torch.nn.functional.conv")) return true;  // conv1d/2d/3d, conv_transpose*
  return is_torchvision_cnn(q);
}

bool is_conv2d_call(std::string_view q) {
  if (q == "torch.nn.Conv2d" || q == "torch.nn.ConvTranspose2d" || q == "torch.nn.LazyConv2d" ||
      q == "torch.nn.LazyConvTranspose2d" || q == "torch.nn.modules.conv.Conv2d" ||
      q == "torch.nn.functional.conv2d" || q == "torch.nn.functional.conv_transpose2d")
    return true;
  // Image classification/detection/segmentation CNNs; torchvision's video models are 3-D.
  return is_torchvision_cnn(q) && q.find(".video.") == std::string_view::npos;
}

bool is_detection_model(std::string_view q) { return starts_with(q, "torchvision.models.detection."); }

const CallInfo* first_call(const Model& model, bool (*pred)(std::string_view)) {
  const CallInfo* best = nullptr;
  for (const auto& c : model.calls())
    if (pred(c.qualname) && (!best || ts_node_start_byte(c.node) < ts_node_start_byte(best->node))) best = &c;
  return best;
}

bool uses_channels_last(const Model& model) {
  auto channels_last = [&](TSNode v) {
    const std::string q = model.qualname(v);
    return q == "torch.channels_last" || q == "torch.channels_last_3d";
  };
  for (const auto& c : model.calls()) {
    for (TSNode p : c.positional)
      if (channels_last(p)) return true;
    for (const auto& k : c.keywords) {
      if (channels_last(k.value)) return true;
      if (k.name != "memory_format") continue;
      // `memory_format=fmt` with `fmt` chosen elsewhere: assume the user thought about it.
      const std::string q = model.qualname(k.value);
      if (q != "torch.contiguous_format" && q != "torch.preserve_format") return true;
    }
  }
  return false;
}

}  // namespace perflint
