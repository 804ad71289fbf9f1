// Rebuilding evidence from the shim's per-step log (see evidence_log.hpp).
#include "probe/evidence_log.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include "probe/json_read.hpp"

namespace perflint::probe {

Expected<Evidence> recover_evidence_text(const std::string& text, const std::string& path) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }  // the text after the last newline is a line the process did not finish writing
  if (lines.empty()) return make_error(path + ": the per-step log holds no complete line");
  std::string header = lines.front();
  auto head = jsonr::parse(header, path);
  if (!head || !head->is_object() || !head->get("schema"))
    return make_error(path + ":1: the per-step log has no header line");
  std::string steps;
  for (size_t i = 1; i < lines.size(); ++i) {
    auto step = jsonr::parse(lines[i], path);
    if (!step || !step->is_object()) break;  // a damaged line: the steps after it are not trusted
    steps += (steps.empty() ? "" : ",") + lines[i];
  }
  const auto close = header.rfind('}');
  header.resize(close);
  return parse_evidence(header + ",\"steps\":[" + steps + "]}", path);
}

Expected<Evidence> recover_evidence(const std::string& evidence_path) {
  const std::string path = evidence_path + ".steps";
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": no per-step log (the script ended before its first step)");
  std::stringstream ss;
  ss << in.rdbuf();
  return recover_evidence_text(ss.str(), path);
}

}  // namespace perflint::probe
