// Numbers in an evidence file are range-checked before they become integers (issue 11 #7: a script
// that calls sys.exit(10**20), or a corrupt file, made the reader convert 1e20 to int: undefined
// behaviour, and INT_MIN on x86). Out-of-range values are clamped to the field's type.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "probe/evidence.hpp"

namespace perflint::probe {
namespace {

TEST(EvidenceRange, HugeAndNegativeNumbersAreClampedNotConverted) {
  const std::string json =
      R"({"schema": 1, "steps_requested": 1e300, "warmup": -1e300, "world_size": 1e20,
          "memory": {"kind": "cuda", "peak_bytes": -5, "total_bytes": 1e40},
          "exit": {"reason": "exit", "code": 1e20},
          "gemm_shapes": [{"m": 1e30, "n": 2, "k": 3, "calls": -1e30}],
          "steps": [{"wall_ms": 1, "checkpoint_calls": 1e12, "zero_grad_calls": -3, "compiles": 1e19,
                     "syncs": [{"site": "t.py:1", "op": "item", "count": 1e25}]}],
          "dataloaders": [{"site": "t.py:2", "num_workers": 1e10, "iterators": -1e10}]})";
  auto e = parse_evidence(json, "evidence.json");
  ASSERT_TRUE(e) << e.error().message;
  constexpr int kMax = std::numeric_limits<int>::max(), kMin = std::numeric_limits<int>::min();
  EXPECT_EQ(e->exit_code, kMax);
  EXPECT_EQ(e->steps_requested, kMax);
  EXPECT_EQ(e->warmup, kMin);
  EXPECT_EQ(e->world_size, kMax);
  EXPECT_EQ(e->peak_bytes, 0u);
  EXPECT_EQ(e->total_bytes, std::numeric_limits<uint64_t>::max());
  ASSERT_EQ(e->gemm_shapes.size(), 1u);
  EXPECT_EQ(e->gemm_shapes[0].m, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(e->gemm_shapes[0].calls, std::numeric_limits<int64_t>::min());
  ASSERT_EQ(e->steps.size(), 1u);
  EXPECT_EQ(e->steps[0].checkpoint_calls, std::numeric_limits<uint32_t>::max());
  EXPECT_EQ(e->steps[0].zero_grad_calls, 0u);
  EXPECT_EQ(e->steps[0].compiles, std::optional<int64_t>(std::numeric_limits<int64_t>::max()));
  ASSERT_EQ(e->steps[0].syncs.size(), 1u);
  EXPECT_EQ(e->steps[0].syncs[0].count, std::numeric_limits<uint64_t>::max());
  ASSERT_EQ(e->loaders.size(), 1u);
  EXPECT_EQ(e->loaders[0].num_workers, kMax);
  EXPECT_EQ(e->loaders[0].iterators, kMin);
}

TEST(EvidenceRange, InRangeNumbersAreReadAsBefore) {
  auto e = parse_evidence(R"({"schema": 1, "exit": {"reason": "exit", "code": -11}, "steps_requested": 7,
                               "steps": [], "memory": {"peak_bytes": 12345678901}})",
                          "evidence.json");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->exit_code, -11);
  EXPECT_EQ(e->steps_requested, 7);
  EXPECT_EQ(e->peak_bytes, 12345678901u);
}

}  // namespace
}  // namespace perflint::probe
