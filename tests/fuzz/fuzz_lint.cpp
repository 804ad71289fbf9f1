// libFuzzer target: lint of one buffer with every rule and the suppression comments in it.
// The checks are in oracles.hpp (tests/fuzz_corpus_test.cpp replays the corpus through them).
#include <cstdio>
#include <cstdlib>

#include "oracles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static perflint::ts::Parser parser;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string wrong = perflint::fuzz::lint_one(input, parser);
  if (!wrong.empty()) {
    std::fprintf(stderr, "%s\n", wrong.c_str());
    std::abort();
  }
  return 0;
}
