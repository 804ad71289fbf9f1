// A minimal ordered JSON value for the json and sarif writers: keys keep insertion order so the
// output is deterministic and reads in schema order, and dump() pretty-prints with 2-space indent.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace perflint::json {

class Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;

class Value {
 public:
  Value() : v_(nullptr) {}
  Value(std::nullptr_t) : v_(nullptr) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<int64_t>(i)) {}
  Value(uint32_t i) : v_(static_cast<int64_t>(i)) {}
  Value(int64_t i) : v_(i) {}
  Value(uint64_t i) : v_(static_cast<int64_t>(i)) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(Array a) : v_(std::move(a)) {}
  Value(Object o) : v_(std::move(o)) {}

  // Appends to an object (a null value becomes an object first).
  Value& set(std::string key, Value value);
  // Appends to an array (a null value becomes an array first).
  Value& push(Value value);

  // Pretty-printed with 2-space indent; empty arrays and objects stay on one line.
  std::string dump() const;
  // On one line with no spaces and no trailing newline (JSON-RPC messages).
  std::string dump_compact() const;

 private:
  void dump_to(std::string& out, int indent) const;
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array, Object> v_;
};

}  // namespace perflint::json
