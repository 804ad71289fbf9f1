// parser/ts_walk.h must visit exactly what a TSTreeCursor visits (same nodes, same fields, same
// depth changes), whatever subtrees the caller passes over: the model's walk relies on it. Checked
// on every fixture, the examples and the fuzz corpus (error recovery, odd bytes), under three
// descend policies.
#include "parser/ts_walk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "parser/ts.hpp"

namespace fs = std::filesystem;

namespace perflint {
namespace {

struct Step {
  TSNode node;
  TSFieldId field;
  int32_t depth;
};

using Policy = std::function<bool(TSNode)>;

// The reference: the cursor, as the model used to drive it.
std::vector<Step> with_cursor(TSNode root, const Policy& descend) {
  std::vector<Step> out;
  TSTreeCursor c = ts_tree_cursor_new(root);
  out.push_back({ts_tree_cursor_current_node(&c), 0, 0});
  for (;;) {
    if (descend(ts_tree_cursor_current_node(&c)) && ts_tree_cursor_goto_first_child(&c)) {
      out.push_back({ts_tree_cursor_current_node(&c), ts_tree_cursor_current_field_id(&c), 1});
      continue;
    }
    int32_t depth = 0;
    bool done = false;
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&c)) {
        out.push_back({ts_tree_cursor_current_node(&c), ts_tree_cursor_current_field_id(&c), depth});
        break;
      }
      if (!ts_tree_cursor_goto_parent(&c)) {
        done = true;
        break;
      }
      --depth;
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&c);
  return out;
}

std::vector<Step> with_walker(TSNode root, const Policy& descend) {
  std::vector<Step> out;
  PflWalker* w = pfl_walker_new(root);
  EXPECT_NE(w, nullptr);
  if (!w) return out;
  out.push_back({pfl_walker_node(w), pfl_walker_field(w), 0});
  for (;;) {
    const int32_t d = pfl_walker_next(w, descend(pfl_walker_node(w)));
    if (d == PFL_WALK_DONE) break;
    out.push_back({pfl_walker_node(w), pfl_walker_field(w), d});
  }
  // Past the end it stays done.
  EXPECT_EQ(pfl_walker_next(w, true), PFL_WALK_DONE);
  pfl_walker_delete(w);
  return out;
}

// Returns "" or the first difference.
std::string compare(const std::string& text, const Policy& descend) {
  ts::Parser parser;
  ts::Tree tree = parser.parse(text);
  if (!tree) return "no tree";
  const auto a = with_cursor(tree.root(), descend), b = with_walker(tree.root(), descend);
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    const Step &x = a[i], &y = b[i];
    const bool same = ts_node_eq(x.node, y.node) && ts_node_start_byte(x.node) == ts_node_start_byte(y.node) &&
                      ts_node_end_byte(x.node) == ts_node_end_byte(y.node) &&
                      ts_node_symbol(x.node) == ts_node_symbol(y.node) &&
                      ts_node_start_point(x.node).row == ts_node_start_point(y.node).row &&
                      ts_node_start_point(x.node).column == ts_node_start_point(y.node).column &&
                      x.field == y.field && x.depth == y.depth;
    if (!same)
      return "step " + std::to_string(i) + ": cursor " + ts_node_type(x.node) + "@" +
             std::to_string(ts_node_start_byte(x.node)) + " field " + std::to_string(x.field) + " depth " +
             std::to_string(x.depth) + ", walker " + ts_node_type(y.node) + "@" +
             std::to_string(ts_node_start_byte(y.node)) + " field " + std::to_string(y.field) + " depth " +
             std::to_string(y.depth);
  }
  if (a.size() != b.size())
    return "cursor visits " + std::to_string(a.size()) + " nodes, walker " + std::to_string(b.size());
  return "";
}

const std::vector<std::pair<std::string, Policy>>& policies() {
  static const std::vector<std::pair<std::string, Policy>> p = {
      {"every node", [](TSNode) { return true; }},
      {"named nodes only", [](TSNode n) { return ts_node_is_named(n); }},
      // Passes over about one subtree in three, deterministically.
      {"some subtrees passed over", [](TSNode n) { return (ts_node_start_byte(n) * 7 + ts_node_symbol(n)) % 3 != 0; }},
  };
  return p;
}

std::vector<fs::path> inputs() {
  std::vector<fs::path> out;
  const fs::path root(PERFLINT_SOURCE_DIR);
  for (const char* dir : {"tests/fixtures", "examples", "tests/fuzz/corpus/lint"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && (e.path().extension() == ".py" || std::string(dir).find("fuzz") != std::string::npos))
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TsWalk, VisitsWhatTheCursorVisitsOnEveryFixture) {
  const auto files = inputs();
  ASSERT_GT(files.size(), 100u);
  for (const auto& f : files) {
    const std::string text = testing::slurp(f.string());
    for (const auto& [name, policy] : policies()) EXPECT_EQ(compare(text, policy), "") << f << " (" << name << ")";
  }
}

TEST(TsWalk, SmallAndDegenerateInputs) {
  for (const std::string& text : {std::string(""), std::string("# only a comment\n"), std::string("x"),
                                 std::string("def f(:\n  return )\n"), std::string(200, '('),
                                 std::string("a = [") + std::string(3000, '[') + "\n",
                                 std::string("\xef\xbb\xbfprint(1)\n"), std::string("if x:\n\tpass\n  else\n")})
    for (const auto& [name, policy] : policies()) EXPECT_EQ(compare(text, policy), "") << "input of " << text.size() << " bytes (" << name << ")";
}

TEST(TsWalk, PassingOverTheRootEndsTheWalk) {
  ts::Parser parser;
  ts::Tree tree = parser.parse("x = 1\n");
  PflWalker* w = pfl_walker_new(tree.root());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(pfl_walker_next(w, false), PFL_WALK_DONE);
  pfl_walker_delete(w);
}


// pfl_children (ts::named_children) lists what a cursor's first-child/next-sibling steps list.
std::string children_agree(const std::string& text) {
  ts::Parser parser;
  ts::Tree tree = parser.parse(text);
  if (!tree) return "no tree";
  std::string bad;
  ts::walk(tree.root(), [&](TSNode n) {
    for (const bool named : {true, false}) {
      std::vector<TSNode> want;
      TSTreeCursor c = ts_tree_cursor_new(n);
      if (ts_tree_cursor_goto_first_child(&c)) do {
          const TSNode k = ts_tree_cursor_current_node(&c);
          if (!named || ts_node_is_named(k)) want.push_back(k);
        } while (ts_tree_cursor_goto_next_sibling(&c));
      ts_tree_cursor_delete(&c);
      TSNode small[2];
      const uint32_t count = pfl_children(n, named, small, 2);
      std::vector<TSNode> got(count);
      pfl_children(n, named, got.data(), count);
      bool same = got.size() == want.size();
      for (size_t i = 0; same && i < got.size(); ++i)
        same = ts_node_eq(got[i], want[i]) && ts_node_start_byte(got[i]) == ts_node_start_byte(want[i]) &&
               ts_node_symbol(got[i]) == ts_node_symbol(want[i]) &&
               ts_node_start_point(got[i]).column == ts_node_start_point(want[i]).column;
      for (size_t i = 0; same && i < std::min<size_t>(2, got.size()); ++i) same = ts_node_eq(small[i], want[i]);
      if (named && same) same = ts::named_children(n).size() == want.size();
      if (!same && bad.empty())
        bad = std::string(named ? "named " : "") + "children of " + ts_node_type(n) + "@" + std::to_string(ts_node_start_byte(n));
    }
    return true;
  });
  return bad;
}

TEST(TsWalk, ChildrenAreTheCursorsOnEveryFixture) {
  const auto files = inputs();
  ASSERT_GT(files.size(), 100u);
  for (const auto& f : files) EXPECT_EQ(children_agree(testing::slurp(f.string())), "") << f;
  EXPECT_EQ(pfl_children(TSNode{}, true, nullptr, 0), 0u);
}

// ts::parent with a ParentCache alive answers what ts_node_parent answers, whatever order the
// nodes are asked in: every node in pre-order, then climbs to the root from every seventh node,
// and the same questions again with no cache (plain ts_node_parent).
std::string parents_agree(const std::string& text) {
  ts::Parser parser;
  ts::Tree tree = parser.parse(text);
  if (!tree) return "no tree";
  std::vector<TSNode> all;
  ts::walk(tree.root(), [&](TSNode n) {
    all.push_back(n);
    return true;
  });
  const TSTree* owner = tree.root().tree;
  ts::ParentCache cache(owner);
  for (const TSNode& n : all)
    if (!ts_node_eq(ts::parent(n), ts_node_parent(n)))
      return std::string("parent of ") + ts_node_type(n) + "@" + std::to_string(ts_node_start_byte(n));
  for (size_t i = 0; i < all.size(); i += 7) {
    TSNode a = all[i], b = all[i];
    for (int guard = 0; guard < 10000 && !ts_node_is_null(b); ++guard) {
      a = ts::parent(a);
      b = ts_node_parent(b);
      if (!ts_node_eq(a, b)) return "climb from node " + std::to_string(i);
    }
    const auto chain = ts::ancestors(all[i]);
    TSNode up = all[i];
    for (size_t k = chain.size(); k-- > 0;) {
      up = ts_node_parent(up);
      if (!ts_node_eq(chain[k], up)) return "ancestors of node " + std::to_string(i);
    }
    if (!ts_node_is_null(ts_node_parent(up))) return "ancestors of node " + std::to_string(i) + " stop early";
  }
  return "";
}

TEST(TsParent, CachedParentsAreTheTreeSittersOnEveryFixture) {
  const auto files = inputs();
  ASSERT_GT(files.size(), 100u);
  for (const auto& f : files) EXPECT_EQ(parents_agree(testing::slurp(f.string())), "") << f;
}

TEST(TsParent, WithoutACacheAndAcrossTrees) {
  ts::Parser parser;
  ts::Tree one = parser.parse("def f(x):\n    return g(x)\n"), two = parser.parse("y = [a for a in b]\n");
  // A cache for one tree leaves the other's questions to ts_node_parent.
  ts::ParentCache cache(one.root().tree);
  std::vector<TSNode> nodes;
  ts::walk(two.root(), [&](TSNode n) {
    nodes.push_back(n);
    return true;
  });
  for (const TSNode& n : nodes) EXPECT_TRUE(ts_node_eq(ts::parent(n), ts_node_parent(n)));
  EXPECT_TRUE(ts_node_is_null(ts::parent(one.root())));
  EXPECT_TRUE(ts_node_is_null(ts::parent(TSNode{})));
  EXPECT_TRUE(ts::ancestors(one.root()).empty());
}

}  // namespace
}  // namespace perflint
