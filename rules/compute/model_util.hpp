// What the compute rules (PFL503, PFL504) need to know about the model a script trains: where it
// builds convolutions, and whether anything asks for the channels_last memory format.
#pragma once
#include <string_view>

#include "parser/model.hpp"

namespace perflint {

// A convolution layer or functional call (`nn.Conv2d`, `F.conv2d`, `nn.ConvTranspose3d`,
// `nn.LazyConv1d`) or a torchvision CNN constructor (`torchvision.models.resnet50`).
bool is_conv_call(std::string_view qualname);
// The same, restricted to 2-D convolutions (and torchvision CNNs), where NCHW vs NHWC matters.
bool is_conv2d_call(std::string_view qualname);
// torchvision detection models: variable image sizes per batch.
bool is_detection_model(std::string_view qualname);

// The first call (in document order) satisfying `pred`, or null.
const CallInfo* first_call(const Model& model, bool (*pred)(std::string_view));

// `memory_format=torch.channels_last` (or _3d, or a value that cannot be read) anywhere in the file.
bool uses_channels_last(const Model& model);

}  // namespace perflint

namespace perflint {

// A static estimate of where a model's fp32 time goes: layers and calls that run as matmuls
// (nn.Linear, attention, RNNs, matmul/bmm/einsum) against convolutions (a torchvision CNN counts
// as many). Counts, not FLOPs: a hint for rules whose benefit depends on which kind dominates.
struct LayerMix {
  int matmuls = 0;
  int convs = 0;
  TSNode first_conv{};
  bool from_torchvision = false;  // a torchvision constructor was counted as 20 layers
  // Convolutions outnumber matmul layers: the model's time goes to cuDNN convolutions.
  bool conv_dominated() const { return convs > 0 && convs > matmuls; }
  bool seen() const { return matmuls + convs > 0; }
};
LayerMix layer_mix(const Model& model);

}  // namespace perflint
