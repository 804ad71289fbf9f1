// The floor for the throughput benchmark: a bare tree-sitter parse of each file named on stdin.
#include <fstream>
#include <iostream>
#include <sstream>

#include "parser/ts.hpp"

int main() {
  perflint::ts::Parser parser;
  std::string path;
  unsigned long long nodes = 0;
  while (std::getline(std::cin, path)) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    auto tree = parser.parse(text);
    nodes += ts_node_descendant_count(tree.root());
  }
  std::cout << nodes << "\n";
  return 0;
}
