// Query wrapper: predicates are evaluated by us (the C library only parses them) and compile errors
// are readable.
#include <gtest/gtest.h>

#include "parser/ts.hpp"

namespace perflint::ts {
namespace {

struct Parsed {
  std::string code;
  Tree tree;
};

Parsed parse(std::string code) {
  static thread_local Parser parser;
  Parsed p{std::move(code), {}};
  p.tree = parser.parse(p.code);
  return p;
}

std::vector<std::string> captured(const Query& q, const Parsed& p, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& m : q.matches(p.tree.root(), p.code)) out.emplace_back(text(m.get(name), p.code));
  return out;
}

TEST(Query, EqAndNotEqPredicates) {
  auto q = Query::compile(R"((call function: (attribute attribute: (identifier) @m) (#eq? @m "item")) @call)");
  ASSERT_TRUE(q.ok()) << q.error().message;
  auto p = parse("a.item()\nb.cpu()\nc.item()\n");
  EXPECT_EQ(captured(*q, p, "call"), (std::vector<std::string>{"a.item()", "c.item()"}));
  auto nq = Query::compile(R"((call function: (attribute attribute: (identifier) @m) (#not-eq? @m "item")) @call)");
  ASSERT_TRUE(nq.ok());
  EXPECT_EQ(captured(*nq, p, "call"), (std::vector<std::string>{"b.cpu()"}));
}

TEST(Query, MatchAndAnyOfPredicates) {
  auto p = parse("x.cpu()\ny.numpy()\nz.tolist()\nw.to(d)\n");
  auto q = Query::compile(R"((call function: (attribute attribute: (identifier) @m) (#match? @m "^(cpu|numpy)$")) @c)");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(captured(*q, p, "c"), (std::vector<std::string>{"x.cpu()", "y.numpy()"}));
  auto a = Query::compile(R"((call function: (attribute attribute: (identifier) @m) (#any-of? @m "tolist" "to")) @c)");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(captured(*a, p, "c"), (std::vector<std::string>{"z.tolist()", "w.to(d)"}));
}

TEST(Query, CaptureToCaptureEquality) {
  auto p = parse("a = a\nb = c\n");
  auto q = Query::compile(R"((assignment left: (identifier) @l right: (identifier) @r (#eq? @l @r)) @s)");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(captured(*q, p, "s"), (std::vector<std::string>{"a = a"}));
}

TEST(Query, CompileErrorsNameLineColumnAndPointAtTheProblem) {
  auto q = Query::compile("(call)\n(no_such_node) @x");
  ASSERT_FALSE(q.ok());
  const std::string& m = q.error().message;
  EXPECT_NE(m.find("unknown node type"), std::string::npos) << m;
  EXPECT_NE(m.find("line 2"), std::string::npos) << m;
  EXPECT_NE(m.find("^"), std::string::npos) << m;
  auto bad = Query::compile(R"((identifier) @x (#frobnicate? @x "y"))");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("frobnicate"), std::string::npos);
}

TEST(Walk, IterativeOverDeepNesting) {
  auto p = parse("x = " + std::string(50000, '[') + std::string(50000, ']') + "\n");
  size_t count = 0;
  walk(p.tree.root(), [&](TSNode) { ++count; return true; });
  EXPECT_GT(count, 50000u);
}

}  // namespace
}  // namespace perflint::ts
