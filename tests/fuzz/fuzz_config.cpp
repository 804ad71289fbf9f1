// libFuzzer target: the config reader (perflint.toml, and pyproject.toml's [tool.perflint] when the
// first byte is odd). The oracle is the sanitizers and "bad input is an Error value, never a throw".
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = (data[0] & 1) ? "pyproject.toml" : "perflint.toml";
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)perflint::parse_config(path, text);
  return 0;
}
