// The cache's byte format, shared by the result packs (cli/cache.cpp) and the project linker's
// facts (cli/project_files.cpp): numbers as decimal followed by a space, strings as their length,
// ':' and the bytes; and the hashes that name entries.
#pragma once
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "rules/finding.hpp"

namespace perflint::serial {

inline uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

inline std::string hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = d[v & 15];
  return out;
}

// Writer and reader of the format: numbers as decimal followed by a space, strings as their
// length, ':' and the bytes.
struct Out {
  std::string s;
  void n(uint64_t v) { s.append(std::to_string(v)).push_back(' '); }
  void str(std::string_view v) {
    s.append(std::to_string(v.size())).push_back(':');
    s.append(v);
  }
  void pos(const Position& p) { n(p.line), n(p.column); }
  void span(const Span& sp) { n(sp.start_byte), n(sp.end_byte), pos(sp.start), pos(sp.end); }
};

struct In {
  std::string_view s;
  bool ok = true;
  uint64_t n() {
    uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr == s.data() + s.size() || *r.ptr != ' ') {
      ok = false;
      return 0;
    }
    s.remove_prefix(static_cast<size_t>(r.ptr - s.data()) + 1);
    return v;
  }
  uint32_t n32() {
    const uint64_t v = n();
    if (v > UINT32_MAX) ok = false;
    return static_cast<uint32_t>(v);
  }
  std::string str() {
    uint64_t len = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), len);
    if (r.ec != std::errc() || r.ptr == s.data() + s.size() || *r.ptr != ':') {
      ok = false;
      return {};
    }
    s.remove_prefix(static_cast<size_t>(r.ptr - s.data()) + 1);
    if (len > s.size()) {
      ok = false;
      return {};
    }
    std::string v(s.substr(0, len));
    s.remove_prefix(len);
    return v;
  }
  Position pos() {
    Position p;
    p.line = n32();
    p.column = n32();
    return p;
  }
  Span span() {
    Span sp;
    sp.start_byte = n32();
    sp.end_byte = n32();
    sp.start = pos();
    sp.end = pos();
    return sp;
  }
};

}  // namespace perflint::serial
