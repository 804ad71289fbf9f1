// libFuzzer target: the probe's evidence reader and the GPU activity file merged into it.
// The checks are in oracles.hpp (tests/fuzz_corpus_test.cpp replays the corpus through them).
#include <cstdio>
#include <cstdlib>

#include "oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string wrong = perflint::fuzz::evidence_one(input);
  if (!wrong.empty()) {
    std::fprintf(stderr, "%s\n", wrong.c_str());
    std::abort();
  }
  return 0;
}
