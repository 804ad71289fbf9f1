// A small read-only JSON document for the probe's evidence file: parse once, then typed look-ups.
// Errors name the line and column; nesting is bounded (a corrupt file cannot exhaust the stack).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parser/expected.hpp"

namespace perflint::jsonr {

class Node {
 public:
  // Declared here and defaulted below, where Node is complete: clang with libstdc++ rejects the
  // implicit ones on a vector of pairs holding the incomplete Node (the fuzz build uses clang).
  Node();
  Node(const Node&);
  Node(Node&&) noexcept;
  Node& operator=(const Node&);
  Node& operator=(Node&&) noexcept;
  ~Node();

  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool b = false;
  double number = 0.0;
  std::string str;
  std::vector<Node> items;                             // Array
  std::vector<std::pair<std::string, Node>> members;  // Object, in file order

  bool is_object() const { return kind == Kind::Object; }
  bool is_array() const { return kind == Kind::Array; }
  // Member look-up; nullptr when absent or when this is not an object.
  const Node* get(std::string_view key) const;
  std::optional<double> num(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
};

inline Node::Node() = default;
inline Node::Node(const Node&) = default;
inline Node::Node(Node&&) noexcept = default;
inline Node& Node::operator=(const Node&) = default;
inline Node& Node::operator=(Node&&) noexcept = default;
inline Node::~Node() = default;

// Parses a whole document. `name` prefixes error messages ("evidence.json:3:14: expected ':'").
Expected<Node> parse(std::string_view text, const std::string& name);

}  // namespace perflint::jsonr
