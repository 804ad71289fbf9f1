// libFuzzer target: the probe's evidence reader (the JSON the shim writes) and the GPU activity file
// merged into it (the bytes after the first NUL, if any). The oracle is the sanitizers (UBSan catches float-to-int overflow) and "bad input
// is an Error value, never a throw".
#include <cstddef>
#include <cstdint>
#include <string>

#include "probe/evidence.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string all(reinterpret_cast<const char*>(data), size);
  const size_t nul = all.find('\0');
  const std::string text = all.substr(0, nul);
  auto e = perflint::probe::parse_evidence(text, "evidence.json");
  if (nul == std::string::npos) return 0;
  perflint::probe::Evidence base;
  (void)perflint::probe::add_gpu_activity(e ? *e : base, all.substr(nul + 1), "gpu.json");
  return 0;
}
