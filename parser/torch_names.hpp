// What torch's functions give back, by qualified name: shared by the model (what a helper returns)
// and the rules (what a value is).
#pragma once
#include <algorithm>
#include <iterator>
#include <string_view>

namespace perflint {

// `torch.` functions that return Python values or objects rather than tensors on the device.
inline bool torch_non_tensor(std::string_view q) {
  for (std::string_view p : {"torch.cuda.", "torch.distributed.", "torch.backends.", "torch.utils.", "torch.get_",
                             "torch.is_", "torch.are_", "torch.version", "torch.jit.", "torch.optim.",
                             "torch.onnx.", "torch.profiler.", "torch.autograd.profiler", "torch.hub."})
    if (q.starts_with(p)) return true;
  if (q.starts_with("torch.nn.") && !q.starts_with("torch.nn.functional.")) return true;
  for (std::string_view e : {"torch.numel", "torch.initial_seed", "torch.seed", "torch.manual_seed", "torch.typename",
                             "torch.finfo", "torch.iinfo", "torch.device", "torch.Size", "torch.compile",
                             "torch.set_grad_enabled", "torch.no_grad", "torch.inference_mode", "torch.autocast",
                             "torch.load", "torch.save", "torch.tensor", "torch.as_tensor", "torch.from_numpy"})
    if (q == e) return true;
  return false;
}

// Factories and loaders: a new tensor in host memory unless told otherwise (`torch.zeros(n)`,
// `torch.tensor(ids)`, `torch.load(f)`), not one computed from other tensors.
inline bool torch_host_factory(std::string_view q) {
  static constexpr std::string_view kFactories[] = {
      "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.arange", "torch.range", "torch.linspace",
      "torch.logspace", "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.eye",
      "torch.empty_strided", "torch.normal", "torch.bernoulli", "torch.multinomial", "torch.poisson",
      "torch.tensor", "torch.as_tensor", "torch.asarray", "torch.from_numpy", "torch.from_file", "torch.frombuffer",
      "torch.load", "torch.tril_indices", "torch.triu_indices", "torch.sparse_coo_tensor", "torch.Tensor",
      "torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.BFloat16Tensor", "torch.ByteTensor",
      "torch.CharTensor", "torch.ShortTensor", "torch.IntTensor", "torch.LongTensor", "torch.BoolTensor",
      "torch.hann_window", "torch.hamming_window", "torch.blackman_window", "torch.bartlett_window",
      "torch.kaiser_window"};
  return std::find(std::begin(kFactories), std::end(kFactories), q) != std::end(kFactories);
}

}  // namespace perflint
