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

namespace perflint {
namespace {

bool is_matmul_call(const CallInfo& c) {
  const std::string_view q = c.qualname;
  for (std::string_view e : {"torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Bilinear", "torch.nn.MultiheadAttention",
                             "torch.nn.Transformer", "torch.nn.TransformerEncoderLayer",
                             "torch.nn.TransformerDecoderLayer", "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN",
                             "torch.nn.LSTMCell", "torch.nn.GRUCell", "torch.nn.functional.linear",
                             "torch.nn.functional.scaled_dot_product_attention", "torch.matmul", "torch.mm",
                             "torch.bmm", "torch.einsum", "torch.baddbmm", "torch.addmm"})
    if (q == e) return true;
  if (q.starts_with("torchvision.models.vit_") || q.starts_with("torchvision.models.swin")) return true;
  return q.empty() && (c.method == "matmul" || c.method == "bmm" || c.method == "mm");
}

}  // namespace

LayerMix layer_mix(const Model& model) {
  LayerMix mix;
  for (const auto& c : model.calls()) {
    if (c.qualname.starts_with("torchvision.models.") && (is_matmul_call(c) || is_conv_call(c.qualname)))
      mix.from_torchvision = true;
    if (is_matmul_call(c)) {
      // A vision transformer is matmul-dominated whatever else the file builds.
      mix.matmuls += c.qualname.starts_with("torchvision.models.") ? 20 : 1;
    } else if (is_conv_call(c.qualname)) {
      mix.convs += c.qualname.starts_with("torchvision.models.") ? 20 : 1;  // a CNN: tens of convolutions
      if (ts_node_is_null(mix.first_conv) || ts_node_start_byte(c.node) < ts_node_start_byte(mix.first_conv))
        mix.first_conv = c.node;
    }
  }
  return mix;
}

}  // namespace perflint
