// Expected<T>: the value of an operation that can fail in an expected way (missing file, bad TOML).
// Exceptions are for bugs only; see STYLE.md rule 7.
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace perflint {

struct Error {
  std::string message;  // full, user-facing: names the path (and line/key where there is one)
};

template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Expected(Error error) : v_(std::move(error)) {}        // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace perflint
