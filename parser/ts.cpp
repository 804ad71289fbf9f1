// tree-sitter wrappers: parsing, iterative traversal, and query predicate evaluation.
#include "parser/ts.hpp"

#include <algorithm>
#include <array>
#include <new>
#include <stdexcept>

#include "parser/ts_walk.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace perflint::ts {

const TSLanguage* python_language() { return tree_sitter_python(); }

Parser::Parser() : parser_(ts_parser_new()) {
  if (!ts_parser_set_language(parser_.get(), python_language()))
    throw std::logic_error("tree-sitter-python ABI does not match the tree-sitter runtime");
}

Tree Parser::parse(std::string_view text) {
  ts_parser_reset(parser_.get());
  return Tree(ts_parser_parse_string(parser_.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
}

TSFieldId field_id(std::string_view name) {
  // Every ts::field call looks a name up: an open-addressing table hashed on the length and the
  // end characters costs less than hashing the whole name. The grammar has a few dozen fields.
  constexpr size_t kSlots = 256;
  using Slots = std::array<std::pair<std::string_view, TSFieldId>, kSlots>;
  const auto hash = [](std::string_view n) -> size_t {
    if (n.empty()) return 0;
    return (n.size() * 31 + static_cast<unsigned char>(n.front()) * 7 + static_cast<unsigned char>(n.back())) % kSlots;
  };
  static const Slots slots = [&] {
    Slots t{};
    const TSLanguage* lang = python_language();
    const uint32_t count = ts_language_field_count(lang);
    for (uint32_t i = 1; i <= count && i < kSlots; ++i) {
      const std::string_view n = ts_language_field_name_for_id(lang, static_cast<TSFieldId>(i));
      size_t h = hash(n);
      while (t[h].first.data() != nullptr && t[h].first != n) h = (h + 1) % kSlots;
      if (t[h].first.data() == nullptr) t[h] = {n, static_cast<TSFieldId>(i)};
    }
    return t;
  }();
  for (size_t h = hash(name);; h = (h + 1) % kSlots) {
    if (slots[h].first.data() == nullptr) return 0;
    if (slots[h].first == name) return slots[h].second;
  }
}

namespace {
// The live caches of this thread, innermost last (a model may build another file's model while it
// lives: the project linker).
thread_local std::vector<ParentCache*> live_caches;
}  // namespace

ParentCache::ParentCache(const TSTree* tree) : tree_(tree) { live_caches.push_back(this); }
ParentCache::~ParentCache() { std::erase(live_caches, this); }

TSNode ParentCache::parent_of(TSNode n) {
  if (n.id == last_) return chain_.empty() ? TSNode{} : chain_.back();
  for (size_t i = chain_.size(); i-- > 0;)
    if (chain_[i].id == n.id) return i == 0 ? TSNode{} : chain_[i - 1];
  // ts_node_parent's descent, keeping every node on the way.
  chain_.clear();
  last_ = n.id;
  TSNode node = ts_tree_root_node(n.tree);
  if (node.id == n.id) return TSNode{};
  for (;;) {
    chain_.push_back(node);
    const TSNode next = ts_node_child_with_descendant(node, n);
    if (next.id == n.id || ts_node_is_null(next)) break;
    node = next;
  }
  return chain_.back();
}

TSNode parent(TSNode n) {
  if (ts_node_is_null(n)) return TSNode{};
  for (auto it = live_caches.rbegin(); it != live_caches.rend(); ++it)
    if ((*it)->tree_ == n.tree) return (*it)->parent_of(n);
  return ts_node_parent(n);
}

std::vector<TSNode> ancestors(TSNode n) {
  std::vector<TSNode> out;
  for (TSNode p = parent(n); !ts_node_is_null(p); p = parent(p)) out.push_back(p);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<TSNode> named_children(TSNode n) {
  // Room for a typical node's children at once; a second pass only for more.
  std::vector<TSNode> out(8);
  uint32_t count = pfl_children(n, true, out.data(), static_cast<uint32_t>(out.size()));
  if (count > out.size()) {
    out.resize(count);
    count = pfl_children(n, true, out.data(), count);
  }
  out.resize(count);
  return out;
}

TSNode Match::get(std::string_view name) const {
  for (const auto& c : captures)
    if (c.name == name) return c.node;
  return TSNode{};
}

namespace {

std::string render_query_error(std::string_view source, uint32_t offset, TSQueryError err) {
  const char* what = "syntax error";
  switch (err) {
    case TSQueryErrorNodeType: what = "unknown node type"; break;
    case TSQueryErrorField: what = "unknown field"; break;
    case TSQueryErrorCapture: what = "unknown capture"; break;
    case TSQueryErrorStructure: what = "impossible pattern structure"; break;
    case TSQueryErrorLanguage: what = "language mismatch"; break;
    default: break;
  }
  uint32_t line = 1, line_start = 0;
  for (uint32_t i = 0; i < offset && i < source.size(); ++i)
    if (source[i] == '\n') { ++line; line_start = i + 1; }
  size_t line_end = source.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = source.size();
  const uint32_t col = offset - line_start;
  std::string msg = "query error: " + std::string(what) + " at line " + std::to_string(line) +
                    ", column " + std::to_string(col + 1) + "\n  " +
                    std::string(source.substr(line_start, line_end - line_start)) + "\n  " +
                    std::string(col, ' ') + "^";
  return msg;
}

}  // namespace

Expected<Query> Query::compile(std::string_view source) {
  uint32_t offset = 0;
  TSQueryError err = TSQueryErrorNone;
  TSQuery* raw = ts_query_new(python_language(), source.data(), static_cast<uint32_t>(source.size()),
                              &offset, &err);
  if (raw == nullptr) return make_error(render_query_error(source, offset, err));
  Query q;
  q.query_ = std::shared_ptr<TSQuery>(raw, QueryDeleter{});
  const uint32_t patterns = ts_query_pattern_count(raw);
  q.predicates_.resize(patterns);
  for (uint32_t p = 0; p < patterns; ++p) {
    uint32_t steps_len = 0;
    const TSQueryPredicateStep* steps = ts_query_predicates_for_pattern(raw, p, &steps_len);
    // Split into predicates at each Done step.
    std::vector<const TSQueryPredicateStep*> cur;
    auto value = [&](const TSQueryPredicateStep* s) {
      uint32_t len = 0;
      const char* str = s->type == TSQueryPredicateStepTypeString
                            ? ts_query_string_value_for_id(raw, s->value_id, &len)
                            : ts_query_capture_name_for_id(raw, s->value_id, &len);
      return std::string(str, len);
    };
    for (uint32_t i = 0; i < steps_len; ++i) {
      if (steps[i].type != TSQueryPredicateStepTypeDone) { cur.push_back(&steps[i]); continue; }
      if (cur.empty()) continue;
      const std::string name = value(cur[0]);
      Predicate pred{};
      if (name == "eq?") pred.op = Predicate::Op::Eq;
      else if (name == "not-eq?") pred.op = Predicate::Op::NotEq;
      else if (name == "match?") pred.op = Predicate::Op::Match;
      else if (name == "not-match?") pred.op = Predicate::Op::NotMatch;
      else if (name == "any-of?") pred.op = Predicate::Op::AnyOf;
      else if (name == "not-any-of?") pred.op = Predicate::Op::NotAnyOf;
      else return make_error("query error: unsupported predicate #" + name);
      if (cur.size() < 3 || cur[1]->type != TSQueryPredicateStepTypeCapture)
        return make_error("query error: #" + name + " needs a capture and a value");
      pred.capture = cur[1]->value_id;
      if (cur[2]->type == TSQueryPredicateStepTypeCapture) {
        pred.rhs_is_capture = true;
        pred.capture_rhs = cur[2]->value_id;
      } else {
        for (size_t k = 2; k < cur.size(); ++k) pred.literals.push_back(value(cur[k]));
      }
      if (pred.op == Predicate::Op::Match || pred.op == Predicate::Op::NotMatch) {
        try {
          pred.regex = std::make_shared<std::regex>(pred.literals.at(0), std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          return make_error("query error: bad regex in #" + name + ": " + e.what());
        }
      }
      q.predicates_[p].push_back(std::move(pred));
      cur.clear();
    }
  }
  return q;
}

uint32_t Query::capture_count() const { return ts_query_capture_count(query_.get()); }

bool Query::holds(const TSQueryMatch& m, std::string_view src) const {
  auto capture_text = [&](uint32_t id, bool& found) -> std::string_view {
    for (uint16_t i = 0; i < m.capture_count; ++i)
      if (m.captures[i].index == id) { found = true; return text(m.captures[i].node, src); }
    found = false;
    return {};
  };
  for (const auto& p : predicates_[m.pattern_index]) {
    bool found = false;
    const std::string_view lhs = capture_text(p.capture, found);
    if (!found) continue;  // optional capture absent: predicate does not constrain
    bool ok = true;
    switch (p.op) {
      case Predicate::Op::Eq:
      case Predicate::Op::NotEq: {
        bool equal;
        if (p.rhs_is_capture) {
          bool rfound = false;
          equal = capture_text(p.capture_rhs, rfound) == lhs;
        } else {
          equal = !p.literals.empty() && p.literals[0] == lhs;
        }
        ok = (p.op == Predicate::Op::Eq) == equal;
        break;
      }
      case Predicate::Op::Match:
      case Predicate::Op::NotMatch: {
        const bool m2 = std::regex_search(lhs.begin(), lhs.end(), *p.regex);
        ok = (p.op == Predicate::Op::Match) == m2;
        break;
      }
      case Predicate::Op::AnyOf:
      case Predicate::Op::NotAnyOf: {
        bool any = false;
        for (const auto& l : p.literals) any = any || l == lhs;
        ok = (p.op == Predicate::Op::AnyOf) == any;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

std::vector<Match> Query::matches(TSNode node, std::string_view src) const {
  std::vector<Match> out;
  std::unique_ptr<TSQueryCursor, CursorDeleter> cursor(ts_query_cursor_new());
  ts_query_cursor_exec(cursor.get(), query_.get(), node);
  TSQueryMatch m;
  while (ts_query_cursor_next_match(cursor.get(), &m)) {
    if (!holds(m, src)) continue;
    Match out_m;
    out_m.pattern = m.pattern_index;
    for (uint16_t i = 0; i < m.capture_count; ++i) {
      uint32_t len = 0;
      const char* name = ts_query_capture_name_for_id(query_.get(), m.captures[i].index, &len);
      out_m.captures.push_back({std::string_view(name, len), m.captures[i].node});
    }
    out.push_back(std::move(out_m));
  }
  return out;
}

}  // namespace perflint::ts
