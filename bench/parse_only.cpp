// The floor for the throughput benchmark: read each file named on stdin (one path a line) and parse
// it with tree-sitter, nothing more, on one thread. Prints "files lines bytes nodes" so that the
// benchmark can check both sides saw the same corpus, and so the tree is not optimised away.
#include <cstdio>
#include <iostream>
#include <string>

#include "parser/ts.hpp"

namespace {

// One fread into a reused buffer: the floor should not be slowed by iostream copies.
bool read_file(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  out.clear();
  char chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) out.append(chunk, n);
  std::fclose(f);
  return true;
}

}  // namespace

int main() {
  perflint::ts::Parser parser;
  std::string path;
  std::string text;
  unsigned long long files = 0, lines = 0, bytes = 0, nodes = 0;
  int failed = 0;
  while (std::getline(std::cin, path)) {
    if (path.empty()) continue;
    if (!read_file(path, text)) {
      std::cerr << "bench_parse_only: cannot read " << path << "\n";
      failed = 1;
      continue;
    }
    auto tree = parser.parse(text);
    nodes += ts_node_descendant_count(tree.root());
    ++files;
    bytes += text.size();
    for (char c : text) lines += (c == '\n');
    if (!text.empty() && text.back() != '\n') ++lines;
  }
  std::cout << files << " " << lines << " " << bytes << " " << nodes << "\n";
  return failed;
}
