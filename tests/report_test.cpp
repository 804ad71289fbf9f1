// Report writer tests: golden files for text (no colour), json and sarif, built from hand-made
// results (two files with findings and notes, a syntax error, an IO error, a notice, tab-indented
// and non-ASCII lines), plus targeted checks of SARIF fields, fingerprints, GitHub escaping,
// colour, carets and statistics.
//
// Golden files live in tests/golden/. The version string is replaced by "<version>" before
// comparing, so a version bump does not touch them. After an intended change to a writer,
// regenerate them with
//     PERFLINT_UPDATE_GOLDEN=1 ./perflint_tests --gtest_filter='ReportGolden.*'
// and review the diff like code.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <variant>

#include "parser/source.hpp"
#include "probe/json_read.hpp"
#include "reports/report.hpp"
#include "rules/rule.hpp"

namespace perflint {
namespace {

// ---------------------------------------------------------------------------------------------
// Parsed JSON, so the tests inspect the structure rather than substrings.

struct J {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<J> arr;
  std::vector<std::pair<std::string, J>> obj;

  bool has(std::string_view key) const {
    if (type != Object) return false;
    for (const auto& [k, v] : obj)
      if (k == key) return true;
    return false;
  }
  const J& operator[](std::string_view key) const {
    for (const auto& [k, v] : obj)
      if (k == key) return v;
    ADD_FAILURE() << "missing key " << key;
    static const J none;
    return none;
  }
  const J& operator[](size_t i) const {
    if (type == Array && i < arr.size()) return arr[i];
    ADD_FAILURE() << "missing index " << i;
    static const J none;
    return none;
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const auto& kv : obj) k.push_back(kv.first);
    return k;
  }
};

// The structure comes from the evidence reader's JSON parser (probe/json_read.hpp); J keeps the
// tests' own accessors, which report a missing key or index as a test failure.
J from_node(const jsonr::Node& n) {
  J j;
  switch (n.kind) {
    case jsonr::Node::Kind::Null: j.type = J::Null; break;
    case jsonr::Node::Kind::Bool: j.type = J::Bool; j.b = n.b; break;
    case jsonr::Node::Kind::Number: j.type = J::Number; j.num = n.number; break;
    case jsonr::Node::Kind::String: j.type = J::String; j.str = n.str; break;
    case jsonr::Node::Kind::Array:
      j.type = J::Array;
      for (const auto& item : n.items) j.arr.push_back(from_node(item));
      break;
    case jsonr::Node::Kind::Object:
      j.type = J::Object;
      for (const auto& [k, v] : n.members) j.obj.emplace_back(k, from_node(v));
      break;
  }
  return j;
}

J parse_json(const std::string& text) {
  auto doc = jsonr::parse(text, "output");
  EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().message) << "\n" << text;
  return doc.ok() ? from_node(*doc) : J{};
}

// ---------------------------------------------------------------------------------------------
// Hand-built results. Spans come from SourceFile, as the rules' Emitter makes them.

const RuleInfo kLoaderRule{"PFL901", "loader-in-main-process", "data-loading", Severity::Warning,
                           "DataLoader loads batches in the training process", false, {"dataloader"}};
const RuleInfo kCopyRule{"PFL902", "blocking-copy", "data-loading", Severity::Warning,
                         "Host-to-device copy without non_blocking=True", true, {"cuda", "h2d"}};
const RuleInfo kSyncRule{"PFL903", "per-step-sync", "host-sync", Severity::Warning,
                         "A host sync on every training step", false, {}};
const RuleInfo kPrecisionRule{"PFL904", "fp32-matmul", "precision", Severity::Info,
                              "fp32 matmuls without TF32", true, {"cuda"}};

const std::vector<const RuleInfo*> kTestRules = {&kLoaderRule, &kCopyRule, &kSyncRule, &kPrecisionRule};

// BOM, CRLF, a tab-indented block and a non-ASCII line before the span.
const std::string kTrainPath = "src/train.py";
const std::string kTrainSource =
    "\xEF\xBB\xBFimport torch\r\n"
    "from torch.utils.data import DataLoader\r\n"
    "\r\n"
    "loader = DataLoader(ds, batch_size=32)\r\n"
    "for step, (x, y) in enumerate(loader):\r\n"
    "\tloss = model(x.cuda(), y)\r\n"
    "\tloss.backward()\r\n"
    "\tprint(\"p\xC3\xA9rte \xE6\x95\xB0\xE6\x8D\xAE:\", loss.item())\r\n";

// A space and a non-ASCII letter in the path (SARIF URI encoding); a syntax error.
const std::string kEvalPath = "my dir/eval \xC3\xBC.py";
const std::string kEvalSource =
    "import torch\n"
    "def evaluate(model, batches):\n"
    "    for b in batches:\n"
    "        print(b.item(), \"caf\xC3\xA9\")\n"
    "    return (\n";

SourceFile source_of(const std::string& path, const std::string& text) {
  auto s = SourceFile::from_bytes(path, text);
  EXPECT_TRUE(s.ok());
  return std::move(*s);
}

// The span of the `occurrence`-th `needle` in the file.
Span span_of(const SourceFile& src, std::string_view needle, int occurrence = 0) {
  size_t pos = src.text().find(needle);
  for (int k = 0; k < occurrence && pos != std::string::npos; ++k) pos = src.text().find(needle, pos + 1);
  EXPECT_NE(pos, std::string::npos) << needle;
  const auto start = static_cast<uint32_t>(pos), end = static_cast<uint32_t>(pos + needle.size());
  return Span{start, end, src.position(start), src.position(end)};
}

Finding make_finding(const RuleInfo& rule, const std::string& path, Span span, std::string message,
                     std::string fix_hint = {}) {
  Finding f;
  f.rule = &rule;
  f.severity = rule.severity;
  f.path = path;
  f.span = span;
  f.message = std::move(message);
  f.fix_hint = std::move(fix_hint);
  return f;
}

struct Fixture {
  std::map<std::string, std::string, std::less<>> sources;
  std::vector<FileResult> results;

  Fixture() {
    sources[kTrainPath] = kTrainSource;
    sources[kEvalPath] = kEvalSource;
    const SourceFile train = source_of(kTrainPath, kTrainSource);
    const SourceFile eval = source_of(kEvalPath, kEvalSource);

    FileResult clean;
    clean.path = "clean.py";
    clean.lines = 3;
    clean.linted = true;

    FileResult big;
    big.path = "data/huge.py";
    big.notices.push_back({"data/huge.py", "skipped: 12.0 MiB is over max-file-size (10 MiB)"});

    FileResult missing;
    missing.path = "missing.py";
    missing.errors.push_back({FileError::Kind::Io, "missing.py", "No such file or directory", std::nullopt});

    FileResult e;
    e.path = kEvalPath;
    e.lines = 5;
    e.linted = true;
    {
      Finding f = make_finding(kSyncRule, kEvalPath, span_of(eval, "b.item()"),
                               "`.item()` on every batch forces a host sync", "");
      e.findings.push_back(f);
    }
    e.errors.push_back({FileError::Kind::Syntax, kEvalPath, "syntax error: unexpected end of file", Position{5, 12}});

    FileResult t;
    t.path = kTrainPath;
    t.lines = 8;
    t.linted = true;
    {
      Finding f = make_finding(kLoaderRule, kTrainPath, span_of(train, "DataLoader(ds, batch_size=32)"),
                               "DataLoader runs in the main process (num_workers=0)",
                               "pass num_workers=8 and persistent_workers=True");
      f.notes.push_back({"num_workers defaults to 0", std::nullopt});
      f.notes.push_back({"the loader feeds this training loop", span_of(train, "enumerate(loader)")});
      f.notes.push_back({"imported on line 2", span_of(train, "DataLoader")});
      t.findings.push_back(f);
    }
    {
      // Multi-line span: the whole loop.
      const Span loop = span_of(train, "for step");
      Span s = loop;
      s.end = train.position(static_cast<uint32_t>(train.text().size()));
      s.end_byte = static_cast<uint32_t>(train.text().size());
      t.findings.push_back(make_finding(kPrecisionRule, kTrainPath, s, "fp32 training loop; TF32 is never enabled",
                                        "add torch.backends.cuda.matmul.allow_tf32 = True before the loop"));
    }
    t.findings.push_back(make_finding(kCopyRule, kTrainPath, span_of(train, "x.cuda()"),
                                      "`x.cuda()` copies the batch synchronously",
                                      "use x.cuda(non_blocking=True) with a pinned loader"));
    {
      Finding f = make_finding(kSyncRule, kTrainPath, span_of(train, "loss.item()"),
                               "`.item()` every step forces a host sync");
      f.severity = Severity::Error;  // as if raised by config
      t.findings.push_back(f);
    }

    // Sorted by path, as the CLI hands them over.
    results = {clean, big, missing, e, t};
  }

  ReportOptions options() const {
    ReportOptions o;
    o.sources = &sources;
    o.rules = &kTestRules;
    return o;
  }
};

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
  return s;
}

std::string strip_ansi(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

void check_golden(const std::string& name, const std::string& actual_raw) {
  const std::string actual = replace_all(actual_raw, PERFLINT_VERSION, "<version>");
  const std::string path = std::string(PERFLINT_SOURCE_DIR) + "/tests/golden/" + name;
  const char* update = std::getenv("PERFLINT_UPDATE_GOLDEN");
  if (update && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (run with PERFLINT_UPDATE_GOLDEN=1)";
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), actual) << "golden " << name << " differs; if intended, regenerate with PERFLINT_UPDATE_GOLDEN=1";
}

// ---------------------------------------------------------------------------------------------

TEST(ReportGolden, Text) {
  Fixture fx;
  check_golden("report.txt", write_text(fx.results, fx.options()));
}

TEST(ReportGolden, Json) {
  Fixture fx;
  check_golden("report.json", write_json(fx.results, fx.options()));
}

TEST(ReportGolden, Sarif) {
  Fixture fx;
  check_golden("report.sarif", write_sarif(fx.results, fx.options()));
}

// The caret line must sit under the span's characters in the displayed line.
std::string under_carets(const std::string& text, std::string_view code_line_prefix) {
  const auto ls = lines_of(text);
  for (size_t i = 0; i + 1 < ls.size(); ++i) {
    if (ls[i].rfind(code_line_prefix, 0) != 0) continue;
    const std::string& src = ls[i];
    const std::string& car = ls[i + 1];
    const size_t from = car.find('^');
    const size_t to = car.find_last_of('^') + 1;
    EXPECT_NE(from, std::string::npos);
    // Both lines are "N | " prefixed; the display may hold multi-byte characters before the
    // carets, so map display cells back to bytes by walking the line.
    std::string out;
    size_t cell = 0;
    for (size_t b = 0; b < src.size();) {
      const auto c = static_cast<unsigned char>(src[b]);
      const size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
      const size_t width = (len == 3 && c == 0xe6) ? 2 : 1;  // the CJK characters used here
      if (cell >= from && cell < to) out += src.substr(b, len);
      cell += width;
      b += len;
    }
    return out;
  }
  ADD_FAILURE() << "no line starting with " << code_line_prefix << " in\n" << text;
  return {};
}

TEST(ReportText, CaretsUnderTabsAndNonAscii) {
  Fixture fx;
  const std::string text = write_text(fx.results, fx.options());
  // Tab-indented line: the tab shows as 4 spaces and the carets follow.
  EXPECT_NE(text.find("6 |     loss = model(x.cuda(), y)\n"), std::string::npos) << text;
  EXPECT_EQ(under_carets(text, "6 | "), "x.cuda()");
  // Tab, an accented letter and two CJK characters (two cells each) before the span.
  EXPECT_EQ(under_carets(text, "8 | "), "loss.item()");
  EXPECT_EQ(under_carets(text, "4 |         print(b.item()"), "b.item()");
  // BOM and CR never reach the terminal.
  EXPECT_EQ(text.find("\xEF\xBB\xBF"), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
}

TEST(ReportText, MultiLineSpanUnderlinesToEndOfFirstLine) {
  Fixture fx;
  const std::string text = write_text(fx.results, fx.options());
  EXPECT_EQ(under_carets(text, "5 | "), "for step, (x, y) in enumerate(loader):");
}

TEST(ReportText, FindingHeaderHelpNotesAndErrors) {
  Fixture fx;
  const std::string text = write_text(fx.results, fx.options());
  EXPECT_NE(text.find("src/train.py:4:10: PFL901 [warning] DataLoader runs in the main process (num_workers=0)\n"),
            std::string::npos);
  EXPECT_NE(text.find("src/train.py:8:21: PFL903 [error] "), std::string::npos) << text;
  EXPECT_NE(text.find("  = help: pass num_workers=8 and persistent_workers=True\n"), std::string::npos);
  EXPECT_NE(text.find("  = note: num_workers defaults to 0\n"), std::string::npos);
  EXPECT_NE(text.find("  = note: the loader feeds this training loop (line 5)\n"), std::string::npos);
  // The message already says where: no "(line 2)" appended.
  EXPECT_NE(text.find("  = note: imported on line 2\n"), std::string::npos);
  EXPECT_NE(text.find("my dir/eval \xC3\xBC.py:5:12: error: syntax error: unexpected end of file\n"),
            std::string::npos);
  // Read errors and notices are the CLI's to print on stderr (issue 11 #15); the report counts them.
  EXPECT_EQ(text.find("missing.py"), std::string::npos) << text;
  EXPECT_EQ(text.find("data/huge.py: notice"), std::string::npos) << text;
  EXPECT_NE(text.find("Found 5 findings (1 error, 3 warnings, 1 info) in 2 files; 3 files checked.\n"
                      "1 file could not be linted (the errors are on stderr).\n"),
            std::string::npos)
      << text;
}

TEST(ReportText, NoSourceMeansNoSnippet) {
  Fixture fx;
  ReportOptions o = fx.options();
  o.sources = nullptr;
  const std::string text = write_text(fx.results, o);
  EXPECT_EQ(text.find(" | "), std::string::npos) << text;
  EXPECT_NE(text.find("  = help: pass num_workers=8"), std::string::npos);
  o = fx.options();
  o.show_source = false;
  EXPECT_EQ(write_text(fx.results, o), text);
}

TEST(ReportText, SummaryWithoutFindings) {
  std::vector<FileResult> results(2);
  results[0].path = "a.py";
  results[0].linted = true;
  results[1].path = "b.py";
  results[1].linted = true;
  EXPECT_EQ(write_text(results, {}), "No findings in 2 files.\n");
  results.pop_back();
  EXPECT_EQ(write_text(results, {}), "No findings in 1 file.\n");
}

TEST(ReportText, ColourOnlyWhenAsked) {
  Fixture fx;
  ReportOptions plain = fx.options();
  ReportOptions colour = fx.options();
  colour.color = true;
  const std::string p = write_text(fx.results, plain);
  const std::string c = write_text(fx.results, colour);
  EXPECT_EQ(p.find('\x1b'), std::string::npos);
  EXPECT_NE(c, p);
  // Same text once the escapes are removed: colour never changes layout.
  EXPECT_EQ(strip_ansi(c), p);
  EXPECT_NE(c.find("\x1b[1msrc/train.py\x1b[0m:4:10"), std::string::npos) << c;  // bold path
  EXPECT_NE(c.find("\x1b[1mPFL901\x1b[0m"), std::string::npos);                   // bold code
  EXPECT_NE(c.find("\x1b[1;33m[warning]\x1b[0m"), std::string::npos);              // yellow warning
  EXPECT_NE(c.find("\x1b[1;31m[error]\x1b[0m"), std::string::npos);                // red error
  EXPECT_NE(c.find("\x1b[1;36m[info]\x1b[0m"), std::string::npos);                 // cyan info
  EXPECT_NE(c.find("\x1b[1;34m|\x1b[0m"), std::string::npos);                      // blue gutter
}

TEST(ReportText, Statistics) {
  Fixture fx;
  ReportOptions o = fx.options();
  o.statistics = true;
  const std::string text = write_text(fx.results, o);
  // Counts descending, then code; no snippets.
  const std::string table =
      "2  PFL903  per-step-sync\n"
      "1  PFL901  loader-in-main-process\n"
      "1  PFL902  blocking-copy\n"
      "1  PFL904  fp32-matmul\n"
      "Found 5 findings";
  EXPECT_NE(text.find(table), std::string::npos) << text;
  EXPECT_EQ(text.find(" | "), std::string::npos);
  EXPECT_NE(text.find("eval \xC3\xBC.py:5:12: error: syntax error"), std::string::npos) << text;  // syntax errors stay
}

TEST(ReportJson, SchemaAndValues) {
  Fixture fx;
  const J root = parse_json(write_json(fx.results, fx.options()));
  EXPECT_EQ(root.keys(), (std::vector<std::string>{"version", "findings", "errors"}));
  EXPECT_EQ(root["version"].str, PERFLINT_VERSION);
  ASSERT_EQ(root["findings"].arr.size(), 5u);
  const std::vector<std::string> keys = {"code", "name", "severity", "path", "line", "column", "end_line",
                                         "end_column", "message", "fix_hint", "notes", "fix"};
  for (const auto& f : root["findings"].arr) EXPECT_EQ(f.keys(), keys);
  // Given order: eval first, then train.
  const J& first = root["findings"][0];
  EXPECT_EQ(first["path"].str, kEvalPath);
  EXPECT_EQ(first["line"].num, 4);
  EXPECT_EQ(first["column"].num, 15);
  EXPECT_EQ(first["end_column"].num, 23);
  const J& loader = root["findings"][1];
  EXPECT_EQ(loader["code"].str, "PFL901");
  EXPECT_EQ(loader["name"].str, "loader-in-main-process");
  EXPECT_EQ(loader["severity"].str, "warning");
  EXPECT_EQ(loader["line"].num, 4);
  EXPECT_EQ(loader["column"].num, 10);
  EXPECT_EQ(loader["end_line"].num, 4);
  EXPECT_EQ(loader["end_column"].num, 39);
  ASSERT_EQ(loader["notes"].arr.size(), 3u);
  EXPECT_EQ(loader["notes"][0].keys(), (std::vector<std::string>{"message"}));
  EXPECT_EQ(loader["notes"][1].keys(), (std::vector<std::string>{"message", "line", "column"}));
  EXPECT_EQ(loader["notes"][1]["line"].num, 5);
  EXPECT_EQ(root["findings"][4]["severity"].str, "error");
  ASSERT_EQ(root["errors"].arr.size(), 2u);
  EXPECT_EQ(root["errors"][0].keys(), (std::vector<std::string>{"path", "message", "kind"}));
  EXPECT_EQ(root["errors"][0]["kind"].str, "io");
  EXPECT_EQ(root["errors"][1].keys(), (std::vector<std::string>{"path", "message", "line", "column", "kind"}));
  EXPECT_EQ(root["errors"][1]["kind"].str, "syntax");
  EXPECT_EQ(root["errors"][1]["line"].num, 5);
}

TEST(ReportJson, EscapesControlCharacters) {
  EXPECT_EQ(json_escape("a\"b\\c\n\t\x01\x1f\x7f\xC3\xA9"), "a\\\"b\\\\c\\n\\t\\u0001\\u001f\\u007f\xC3\xA9");
  // Malformed UTF-8 (a path is arbitrary bytes) becomes U+FFFD; well-formed sequences pass through.
  EXPECT_EQ(json_escape("a\xFF\xC3(b\xE6\x95\xB0\xF0\x9F\x98\x80\xED\xA0\x80"),
            "a\\ufffd\\ufffd(b\xE6\x95\xB0\xF0\x9F\x98\x80\\ufffd\\ufffd\\ufffd");
  FileResult r;
  r.path = "q\"uote.py";
  r.linted = true;
  Finding f = make_finding(kSyncRule, r.path, Span{}, "bell\x07 and \"quotes\"\r\nnext");
  r.findings.push_back(f);
  const std::string out = write_json({r}, {});
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  const J root = parse_json(out);
  EXPECT_EQ(root["findings"][0]["message"].str, f.message);
  EXPECT_EQ(root["findings"][0]["path"].str, r.path);
}

TEST(ReportSarif, EveryFieldGitHubReads) {
  Fixture fx;
  const J root = parse_json(write_sarif(fx.results, fx.options()));
  EXPECT_EQ(root["$schema"].str, "https://json.schemastore.org/sarif-2.1.0.json");
  EXPECT_EQ(root["version"].str, "2.1.0");
  ASSERT_EQ(root["runs"].arr.size(), 1u);
  const J& run = root["runs"][0];
  const J& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"].str, "perflint");
  EXPECT_EQ(driver["version"].str, PERFLINT_VERSION);
  EXPECT_EQ(driver["informationUri"].str, "https://github.com/perflint/perflint");
  EXPECT_EQ(run["columnKind"].str, "unicodeCodePoints");

  const J& rules = driver["rules"];
  ASSERT_EQ(rules.arr.size(), kTestRules.size());
  for (size_t i = 0; i < kTestRules.size(); ++i) {
    const J& r = rules[i];
    EXPECT_EQ(r["id"].str, kTestRules[i]->code);
    EXPECT_EQ(r["name"].str, kTestRules[i]->name);
    EXPECT_EQ(r["shortDescription"]["text"].str, kTestRules[i]->summary);
    EXPECT_FALSE(r["fullDescription"]["text"].str.empty());
    EXPECT_FALSE(r["help"]["text"].str.empty());
    EXPECT_FALSE(r["help"]["markdown"].str.empty());
    EXPECT_EQ(r["defaultConfiguration"]["level"].str, kTestRules[i]->severity == Severity::Info ? "note" : "warning");
    const auto& tags = r["properties"]["tags"].arr;
    ASSERT_FALSE(tags.empty());
    EXPECT_EQ(tags.front().str, kTestRules[i]->category);
    EXPECT_EQ(tags.back().str, "performance");
  }
  EXPECT_EQ(rules[1]["properties"]["tags"].arr.size(), 4u);  // data-loading, cuda, h2d, performance

  const J& results = run["results"];
  ASSERT_EQ(results.arr.size(), 5u);
  for (const auto& res : results.arr) {
    const std::string id = res["ruleId"].str;
    const auto idx = static_cast<size_t>(res["ruleIndex"].num);
    ASSERT_LT(idx, rules.arr.size());
    EXPECT_EQ(rules[idx]["id"].str, id);
    EXPECT_TRUE(res["level"].str == "error" || res["level"].str == "warning" || res["level"].str == "note");
    EXPECT_FALSE(res["message"]["text"].str.empty());
    const J& pl = res["locations"][0]["physicalLocation"];
    EXPECT_EQ(pl["artifactLocation"]["uriBaseId"].str, "%SRCROOT%");
    const J& reg = pl["region"];
    for (const char* k : {"startLine", "startColumn", "endLine", "endColumn"}) EXPECT_TRUE(reg.has(k)) << k;
    const std::string fp = res["partialFingerprints"]["primaryLocationLineHash"].str;
    EXPECT_EQ(fp.size(), 18u) << fp;  // 16 hex digits, ':', occurrence
    EXPECT_EQ(fp.substr(16), ":1");
  }
  const J& eval = results[0];
  EXPECT_EQ(eval["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].str, "my%20dir/eval%20%C3%BC.py");
  const J& loader = results[1];
  EXPECT_EQ(loader["ruleId"].str, "PFL901");
  EXPECT_EQ(loader["level"].str, "warning");
  EXPECT_EQ(loader["message"]["text"].str,
            "DataLoader runs in the main process (num_workers=0) Fix: pass num_workers=8 and persistent_workers=True");
  EXPECT_EQ(loader["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].str, "src/train.py");
  const J& reg = loader["locations"][0]["physicalLocation"]["region"];
  EXPECT_EQ(reg["startLine"].num, 4);
  EXPECT_EQ(reg["startColumn"].num, 10);
  EXPECT_EQ(reg["endLine"].num, 4);
  EXPECT_EQ(reg["endColumn"].num, 39);
  // Notes with spans become related locations; the one without does not.
  ASSERT_EQ(loader["relatedLocations"].arr.size(), 2u);
  EXPECT_EQ(loader["relatedLocations"][0]["message"]["text"].str, "the loader feeds this training loop");
  EXPECT_EQ(loader["relatedLocations"][0]["physicalLocation"]["region"]["startLine"].num, 5);
  EXPECT_FALSE(results[2].has("relatedLocations"));
  EXPECT_EQ(results[4]["level"].str, "error");  // config override wins over the rule default
  EXPECT_EQ(results[2]["level"].str, "note");

  const J& inv = run["invocations"][0];
  EXPECT_FALSE(inv["executionSuccessful"].b);  // an IO error
  const auto& notes = inv["toolExecutionNotifications"].arr;
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0]["level"].str, "note");
  EXPECT_EQ(notes[1]["descriptor"]["id"].str, "io");
  EXPECT_EQ(notes[1]["message"]["text"].str, "No such file or directory");
  EXPECT_EQ(notes[2]["descriptor"]["id"].str, "syntax");
  EXPECT_EQ(notes[2]["locations"][0]["physicalLocation"]["region"]["startLine"].num, 5);
}

TEST(ReportSarif, SuccessfulWithoutIoErrorsAndAddsUnknownRules) {
  Fixture fx;
  std::vector<FileResult> results = {fx.results[0], fx.results[4]};  // clean + train
  const std::vector<const RuleInfo*> only_one = {&kCopyRule};
  ReportOptions o = fx.options();
  o.rules = &only_one;
  const J root = parse_json(write_sarif(results, o));
  const J& run = root["runs"][0];
  EXPECT_TRUE(run["invocations"][0]["executionSuccessful"].b);
  const J& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.arr.size(), 4u);
  EXPECT_EQ(rules[0]["id"].str, "PFL902");
  for (const auto& res : run["results"].arr)
    EXPECT_EQ(rules[static_cast<size_t>(res["ruleIndex"].num)]["id"].str, res["ruleId"].str);
}

TEST(ReportSarif, UrisRelativeToBaseDir) {
  FileResult r;
  r.linted = true;
  r.path = "/srv/repo/pkg/a b#c.py";
  r.findings.push_back(make_finding(kSyncRule, r.path, Span{0, 1, {1, 1}, {1, 2}}, "m"));
  FileResult outside = r;
  outside.path = outside.findings[0].path = "/elsewhere/x.py";
  ReportOptions o;
  o.rules = &kTestRules;
  o.base_dir = "/srv/repo/";
  const J root = parse_json(write_sarif({r, outside}, o));
  const J& a = root["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(a["uri"].str, "pkg/a%20b%23c.py");
  EXPECT_EQ(a["uriBaseId"].str, "%SRCROOT%");
  const J& b = root["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(b["uri"].str, "file:///elsewhere/x.py");
  EXPECT_FALSE(b.has("uriBaseId"));
  // No source: no fingerprint rather than a made-up one.
  EXPECT_FALSE(root["runs"][0]["results"][0].has("partialFingerprints"));
}

std::string fingerprint(const std::string& source, uint32_t line) {
  std::map<std::string, std::string, std::less<>> sources{{"f.py", source}};
  FileResult r;
  r.path = "f.py";
  r.linted = true;
  r.findings.push_back(make_finding(kSyncRule, "f.py", Span{0, 0, {line, 5}, {line, 9}}, "m"));
  ReportOptions o;
  o.sources = &sources;
  o.rules = &kTestRules;
  const J root = parse_json(write_sarif({r}, o));
  return root["runs"][0]["results"][0]["partialFingerprints"]["primaryLocationLineHash"].str;
}

TEST(ReportSarif, FingerprintStableWhenLinesInsertedAbove) {
  const std::string before = "import torch\nfor x in xs:\n    v = x.item()\n";
  const std::string after = "import torch\nimport os\n\n# a comment\nfor x in xs:\n    v = x.item()\n";
  const std::string fp = fingerprint(before, 3);
  EXPECT_EQ(fp, fingerprint(after, 6));
  // Re-indenting and CRLF do not change it either; changing the line's code does.
  EXPECT_EQ(fp, fingerprint("import torch\r\nfor x in xs:\r\n\tv = x.item()\r\n", 3));
  EXPECT_NE(fp, fingerprint("import torch\nfor x in xs:\n    w = x.item()\n", 3));
  // The same text twice: the occurrence index tells them apart, GitHub-style.
  const std::string twice = "v = x.item()\nprint(1)\nv = x.item()\n";
  EXPECT_EQ(fingerprint(twice, 1).substr(0, 16), fingerprint(twice, 3).substr(0, 16));
  EXPECT_EQ(fingerprint(twice, 1).substr(16), ":1");
  EXPECT_EQ(fingerprint(twice, 3).substr(16), ":2");
  EXPECT_EQ(fingerprint(twice, 3).substr(0, 16), fp.substr(0, 16));
  EXPECT_EQ(line_fingerprint_hash(" a b\t"), line_fingerprint_hash("ab"));
  EXPECT_NE(line_fingerprint_hash("ab"), line_fingerprint_hash("ba"));
}

TEST(ReportGithub, EscapesPropertiesAndMessage) {
  FileResult r;
  r.path = "dir,1/a:b%.py";
  r.linted = true;
  Finding f = make_finding(kCopyRule, r.path, Span{0, 0, {3, 5}, {4, 2}}, "100% slow: a, b\r\nnext");
  r.findings.push_back(f);
  f.severity = Severity::Error;
  f.message = "e";
  r.findings.push_back(f);
  f.severity = Severity::Info;
  f.fix_hint = "do x";
  r.findings.push_back(f);
  r.errors.push_back({FileError::Kind::Syntax, r.path, "bad, token", Position{7, 1}});
  r.errors.push_back({FileError::Kind::Io, r.path, "gone", std::nullopt});
  const std::string out = write_github({r}, {});
  const auto ls = lines_of(out);
  ASSERT_EQ(ls.size(), 5u) << out;
  EXPECT_EQ(ls[0],
            "::warning file=dir%2C1/a%3Ab%25.py,line=3,col=5,endLine=4,endColumn=2,title=perflint (PFL902)::"
            "100%25 slow: a, b%0D%0Anext");
  EXPECT_EQ(ls[1].rfind("::error file=dir%2C1/a%3Ab%25.py,line=3,", 0), 0u);
  EXPECT_EQ(ls[2].rfind("::notice ", 0), 0u);
  EXPECT_NE(ls[2].find("::e%0Ahelp: do x"), std::string::npos);
  EXPECT_EQ(ls[3], "::error file=dir%2C1/a%3Ab%25.py,line=7,col=1,title=perflint (syntax error)::bad, token");
  EXPECT_EQ(ls[4], "::error file=dir%2C1/a%3Ab%25.py,title=perflint (io error)::gone");
}

TEST(ReportRules, ListGroupedAndAligned) {
  const std::string out = write_rule_list(kTestRules, false);
  EXPECT_EQ(out,
            "data-loading\n"
            "  PFL901  loader-in-main-process  warning  DataLoader loads batches in the training process\n"
            "  PFL902  blocking-copy           warning  Host-to-device copy without non_blocking=True\n"
            "\n"
            "host-sync\n"
            "  PFL903  per-step-sync           warning  A host sync on every training step\n"
            "\n"
            "precision\n"
            "  PFL904  fp32-matmul             info     fp32 matmuls without TF32\n");
  EXPECT_EQ(strip_ansi(write_rule_list(kTestRules, true)), out);
  EXPECT_NE(write_rule_list(kTestRules, true), out);
}

TEST(ReportRules, Explanation) {
  const std::string md =
      "# PFL903 per-step-sync\n\n## What it does\n\nFinds syncs.\n\n## Example\n\n```python\nx.item()\n```\n";
  const std::string out = write_rule_explanation(kSyncRule, md);
  EXPECT_EQ(out, "PFL903 per-step-sync (host-sync, warning)\n\nWhat it does:\n\nFinds syncs.\n\nExample:\n\nx.item()\n");
  EXPECT_EQ(write_rule_explanation(kPrecisionRule, ""), "PFL904 fp32-matmul (precision, info)\n\nfp32 matmuls without TF32\n");
  EXPECT_EQ(write_rule_explanation("PFL999-no-such-rule"), "");
}

TEST(ReportDispatch, WriteReportPicksTheWriter) {
  Fixture fx;
  const ReportOptions o = fx.options();
  EXPECT_EQ(write_report(OutputFormat::Text, fx.results, o), write_text(fx.results, o));
  EXPECT_EQ(write_report(OutputFormat::Json, fx.results, o), write_json(fx.results, o));
  EXPECT_EQ(write_report(OutputFormat::Sarif, fx.results, o), write_sarif(fx.results, o));
  EXPECT_EQ(write_report(OutputFormat::Github, fx.results, o), write_github(fx.results, o));
}

}  // namespace
}  // namespace perflint
