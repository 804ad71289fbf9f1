// `perflint server` (see server.hpp): the JSON-RPC transport, the document store and the handlers.
// One thread: a message is read, handled and answered before the next is read; linting a file
// takes milliseconds, so nothing is queued or debounced.
#include "cli/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "cli/discover.hpp"
#include "cli/lsp_text.hpp"
#include "cli/project_files.hpp"
#include "cli/selection.hpp"
#include "parser/ts.hpp"
#include "probe/json_read.hpp"
#include "reports/json_util.hpp"
#include "rules/docs.hpp"
#include "rules/engine.hpp"
#include "rules/fixer.hpp"
#include "rules/registry.hpp"

namespace perflint {

namespace {

namespace fs = std::filesystem;
using json::Value;
using jsonr::Node;

// JSON-RPC error codes (JSON-RPC 2.0 and LSP).
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

constexpr size_t kMaxHeaderBytes = 8 * 1024;
constexpr size_t kMaxMessageBytes = 256ull * 1024 * 1024;

void log(const std::string& line) {
  const std::string text = "perflint server: " + line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

// Content-Length framed messages over two file descriptors.
class Transport {
 public:
  Transport(int in, int out) : in_(in), out_(out) {}

  enum class Status { Message, End, Broken };

  Status next(std::string& body, std::string& error) {
    size_t length = 0;
    bool have_length = false;
    size_t header_bytes = 0;
    for (;;) {  // header lines, up to an empty one
      std::string line;
      if (!read_line(line, header_bytes)) {
        if (header_bytes == 0 && line.empty()) return Status::End;
        error = header_bytes > kMaxHeaderBytes ? "a message header over 8 KiB" : "the input ended inside a message header";
        return Status::Broken;
      }
      if (line.empty()) break;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) {
        error = "a header line without ':' (" + line.substr(0, 60) + ")";
        return Status::Broken;
      }
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (name == "content-length") {
        const std::string v = line.substr(colon + 1);
        size_t i = v.find_first_not_of(" \t"), n = 0;
        bool digits = false;
        for (; i != std::string::npos && i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])); ++i) {
          n = n * 10 + static_cast<size_t>(v[i] - '0');
          digits = true;
          if (n > kMaxMessageBytes) break;
        }
        if (!digits || n > kMaxMessageBytes) {
          error = "a Content-Length that is not a number of bytes up to 256 MiB (" + v + ")";
          return Status::Broken;
        }
        length = n;
        have_length = true;
      }
    }
    if (!have_length) {
      error = "a message without a Content-Length header";
      return Status::Broken;
    }
    body.clear();
    while (body.size() < length) {
      if (pos_ == buf_.size() && !fill()) {
        error = "the input ended inside a message body";
        return Status::Broken;
      }
      const size_t take = std::min(length - body.size(), buf_.size() - pos_);
      body.append(buf_, pos_, take);
      pos_ += take;
    }
    return Status::Message;
  }

  bool send(const Value& message) {
    const std::string body = message.dump_compact();
    const std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    size_t done = 0;
    while (done < frame.size()) {
      const ssize_t n = ::write(out_, frame.data() + done, frame.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

 private:
  bool fill() {
    if (pos_ == buf_.size()) buf_.clear(), pos_ = 0;
    char chunk[1 << 16];
    for (;;) {
      const ssize_t n = ::read(in_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buf_.append(chunk, static_cast<size_t>(n));
      return true;
    }
  }

  // A header line without its "\r\n" (a bare "\n" is accepted too); false at the end of input or
  // past the header limit.
  bool read_line(std::string& line, size_t& header_bytes) {
    for (;;) {
      while (pos_ < buf_.size()) {
        const char c = buf_[pos_++];
        if (++header_bytes > kMaxHeaderBytes) return false;
        if (c == '\n') {
          if (!line.empty() && line.back() == '\r') line.pop_back();
          return true;
        }
        line += c;
      }
      if (!fill()) return false;
    }
  }

  int in_, out_;
  std::string buf_;
  size_t pos_ = 0;
};

// file:///a/b%20c.py -> /a/b c.py; other schemes (untitled:) -> empty.
std::string uri_to_path(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return {};
  std::string rest = uri.substr(7);
  const size_t slash = rest.find('/');
  if (slash == std::string::npos) return {};
  rest = rest.substr(slash);  // drop an authority ("localhost")
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

struct Document {
  std::string uri;
  std::string path;     // where it is linted as being (its config, siblings)
  std::string language;
  int64_t version = 0;
  std::string text;
  uint32_t bom = 0;     // SourceFile drops a UTF-8 BOM: spans are that many bytes short
  FileResult result;    // the last lint
};

// Everything a lint of one document needs, resolved from its path.
struct Prepared {
  std::unique_ptr<Config> config;
  std::unique_ptr<RuleSets> sets;
  const RuleSet* rules = nullptr;
  bool excluded = false;
};

int64_t as_int(const Node* n, int64_t fallback = 0) {
  if (!n || n->kind != Node::Kind::Number || !std::isfinite(n->number)) return fallback;
  return static_cast<int64_t>(n->number);
}

const std::string* as_string(const Node* n) { return n && n->kind == Node::Kind::String ? &n->str : nullptr; }

Value to_value(const Node& n) {
  switch (n.kind) {
    case Node::Kind::Null: return Value();
    case Node::Kind::Bool: return Value(n.b);
    case Node::Kind::Number:
      if (std::floor(n.number) == n.number && std::fabs(n.number) < 9.0e15) return Value(static_cast<int64_t>(n.number));
      return Value(n.number);
    case Node::Kind::String: return Value(n.str);
    case Node::Kind::Array: {
      Value a = json::Array{};
      for (const auto& i : n.items) a.push(to_value(i));
      return a;
    }
    case Node::Kind::Object: {
      Value o = json::Object{};
      for (const auto& [k, v] : n.members) o.set(k, to_value(v));
      return o;
    }
  }
  return Value();
}

class Server {
 public:
  Server(const Options& options, Transport& transport) : options_(options), io_(transport) {
    std::error_code ec;
    cwd_ = fs::current_path(ec).string();
  }

  // Handles one message; false when the server must stop (exit).
  bool handle(const std::string& body) {
    auto parsed = jsonr::parse(body, "message");
    if (!parsed) {
      respond_error(Value(), kParseError, "not JSON: " + parsed.error().message);
      return true;
    }
    const Node& msg = *parsed;
    const std::string* method = as_string(msg.get("method"));
    const Node* id = msg.get("id");
    if (!msg.is_object() || (!method && !id)) {
      respond_error(id ? to_value(*id) : Value(), kInvalidRequest, "not a JSON-RPC request or notification");
      return true;
    }
    if (!method) return true;  // a response to something we never ask: ignored
    static const Node kEmpty;
    const Node& params = msg.get("params") ? *msg.get("params") : kEmpty;
    const Value rid = id ? to_value(*id) : Value();
    if (*method == "exit") {
      exit_code_ = shutdown_ ? 0 : 1;
      return false;
    }
    if (!initialized_ && *method != "initialize") {
      if (id) respond_error(rid, kServerNotInitialized, "the server has not been initialized");
      return true;
    }
    if (shutdown_) {
      if (id) respond_error(rid, kInvalidRequest, "the server is shutting down: only `exit` is accepted");
      return true;
    }
    try {
      if (*method == "initialize") {
        if (initialized_) return respond_error(rid, kInvalidRequest, "initialize was already received"), true;
        initialized_ = true;
        respond(rid, initialize_result());
      } else if (*method == "shutdown") {
        shutdown_ = true;
        respond(rid, Value());
      } else if (*method == "textDocument/didOpen") {
        did_open(params);
      } else if (*method == "textDocument/didChange") {
        did_change(params);
      } else if (*method == "textDocument/didSave") {
        did_save(params);
      } else if (*method == "textDocument/didClose") {
        did_close(params);
      } else if (*method == "textDocument/codeAction") {
        if (id) respond(rid, code_actions(params));
      } else if (*method == "textDocument/hover") {
        if (id) respond(rid, hover(params));
      } else if (id) {
        respond_error(rid, kMethodNotFound, "perflint does not implement " + *method);
      }
      // Other notifications ($/cancelRequest, initialized, workspace/*) need nothing from us.
    } catch (const BadParams& e) {
      if (id) respond_error(rid, kInvalidParams, e.what);
      else log("ignored " + *method + ": " + e.what);
    } catch (const std::exception& e) {
      log("internal error in " + *method + ": " + e.what());
      if (id) respond_error(rid, kInternalError, std::string("internal error: ") + e.what());
    }
    return true;
  }

  int exit_code() const { return exit_code_; }
  bool shut_down() const { return shutdown_; }

 private:
  struct BadParams {
    std::string what;
  };

  static const Node& require(const Node& params, const char* key, Node::Kind kind) {
    const Node* n = params.get(key);
    if (!n || n->kind != kind) throw BadParams{std::string("params need '") + key + "'"};
    return *n;
  }

  void respond(const Value& id, Value result) {
    Value m;
    m.set("jsonrpc", "2.0");
    m.set("id", id);
    m.set("result", std::move(result));
    send(m);
  }

  void respond_error(const Value& id, int code, const std::string& message) {
    Value err;
    err.set("code", code);
    err.set("message", message);
    Value m;
    m.set("jsonrpc", "2.0");
    m.set("id", id);
    m.set("error", std::move(err));
    send(m);
  }

  void notify(const char* method, Value params) {
    Value m;
    m.set("jsonrpc", "2.0");
    m.set("method", method);
    m.set("params", std::move(params));
    send(m);
  }

  void send(const Value& m) {
    if (!io_.send(m)) log("cannot write to the client (standard output closed?)");
  }

  void show_message(int type, const std::string& text) {
    Value p;
    p.set("type", type);  // 1 error, 2 warning, 3 info
    p.set("message", text);
    notify("window/showMessage", std::move(p));
  }

  static Value initialize_result() {
    Value sync;
    sync.set("openClose", true);
    sync.set("change", 1);  // full text on every change
    Value save;
    save.set("includeText", true);
    sync.set("save", std::move(save));
    Value kinds = json::Array{};
    kinds.push("quickfix");
    kinds.push("source.fixAll.perflint");
    Value actions;
    actions.set("codeActionKinds", std::move(kinds));
    Value caps;
    caps.set("positionEncoding", "utf-16");
    caps.set("textDocumentSync", std::move(sync));
    caps.set("codeActionProvider", std::move(actions));
    caps.set("hoverProvider", true);
    Value info;
    info.set("name", "perflint");
    info.set("version", PERFLINT_VERSION);
    Value r;
    r.set("capabilities", std::move(caps));
    r.set("serverInfo", std::move(info));
    return r;
  }

  // --- documents ---------------------------------------------------------------------------------

  void did_open(const Node& params) {
    const Node& td = require(params, "textDocument", Node::Kind::Object);
    Document d;
    d.uri = require(td, "uri", Node::Kind::String).str;
    d.text = require(td, "text", Node::Kind::String).str;
    if (const std::string* lang = as_string(td.get("languageId"))) d.language = *lang;
    d.version = as_int(td.get("version"));
    d.path = uri_to_path(d.uri);
    if (d.path.empty()) d.path = (fs::path(cwd_) / "untitled.py").string();  // an unsaved buffer
    Document& stored = docs_[d.uri] = std::move(d);
    lint_and_publish(stored);
  }

  Document* find(const Node& params) {
    const Node& td = require(params, "textDocument", Node::Kind::Object);
    const std::string& uri = require(td, "uri", Node::Kind::String).str;
    auto it = docs_.find(uri);
    return it == docs_.end() ? nullptr : &it->second;
  }

  void did_change(const Node& params) {
    Document* d = find(params);
    if (!d) return;  // not opened: nothing to track
    const Node& changes = require(params, "contentChanges", Node::Kind::Array);
    for (const Node& c : changes.items) {
      const std::string* text = as_string(c.get("text"));
      if (!text) throw BadParams{"a content change without text"};
      if (const Node* range = c.get("range"); range && range->is_object()) {
        // Incremental, though we ask for full text: applied all the same.
        const lsp::LineIndex index(d->text);
        const uint32_t a = index.to_byte(position(*range, "start"));
        const uint32_t b = std::max(a, index.to_byte(position(*range, "end")));
        d->text.replace(a, b - a, *text);
      } else {
        d->text = *text;
      }
    }
    if (const Node* td = params.get("textDocument")) d->version = as_int(td->get("version"), d->version);
    lint_and_publish(*d);
  }

  void did_save(const Node& params) {
    Document* d = find(params);
    if (!d) return;
    if (const std::string* text = as_string(params.get("text"))) d->text = *text;
    lint_and_publish(*d);  // sibling modules may have changed on disk too
  }

  void did_close(const Node& params) {
    Document* d = find(params);
    if (!d) return;
    const std::string uri = d->uri;
    docs_.erase(uri);
    Value p;
    p.set("uri", uri);
    p.set("diagnostics", json::Array{});
    notify("textDocument/publishDiagnostics", std::move(p));
  }

  // `parent[key]` as a position (a range's start/end, a hover's position); negatives count as 0.
  static lsp::Position position(const Node& parent, const char* key) {
    const Node* p = parent.get(key);
    if (!p || !p->is_object()) throw BadParams{std::string("'") + key + "' must be a position {line, character}"};
    return {static_cast<uint32_t>(std::max<int64_t>(0, as_int(p->get("line")))),
            static_cast<uint32_t>(std::max<int64_t>(0, as_int(p->get("character"))))};
  }

  // --- linting -----------------------------------------------------------------------------------

  // The config, rules and exclusion for a document's path; nullopt (said to the user) on a bad config.
  std::optional<Prepared> prepare(const Document& d) {
    Expected<Config> loaded = config_for(options_, fs::path(d.path).parent_path().string(), cwd_);
    if (!loaded) {
      report_config_error(loaded.error().message);
      return std::nullopt;
    }
    Prepared p;
    p.config = std::make_unique<Config>(std::move(*loaded));
    if (std::string bad = check_selectors(options_, *p.config); !bad.empty()) {
      report_config_error(bad);
      return std::nullopt;
    }
    last_config_error_.clear();
    p.excluded = matches_any_glob(p.config->exclude, d.path, p.config->root);
    p.sets = std::make_unique<RuleSets>(*p.config, effective_selection(options_, *p.config));
    p.rules = &p.sets->for_file(d.path);
    return p;
  }

  void report_config_error(const std::string& message) {
    if (message == last_config_error_) return;  // once, not on every keystroke
    last_config_error_ = message;
    log(message);
    show_message(1, "perflint: " + message);
  }

  void lint_and_publish(Document& d) {
    d.result = FileResult{};
    d.bom = d.text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    const bool python = d.language.empty() || d.language == "python" || d.path.ends_with(".py");
    if (python) {
      if (std::optional<Prepared> p = prepare(d); p && !p->excluded) {
        if (d.text.size() > p->config->max_file_size) {
          log(d.path + ": not linted: over the max-file-size limit");
        } else {
          FileProjectContext project;  // siblings are read afresh: they may have changed
          d.result = lint_buffer(d.path, d.text, *p->rules, parser_, &project);
        }
      }
    }
    publish(d);
  }

  // --- diagnostics -------------------------------------------------------------------------------

  static Value range(const lsp::LineIndex& index, uint32_t start_byte, uint32_t end_byte) {
    auto pos = [](lsp::Position p) {
      Value v;
      v.set("line", p.line);
      v.set("character", p.character);
      return v;
    };
    Value r;
    r.set("start", pos(index.to_lsp(start_byte)));
    r.set("end", pos(index.to_lsp(std::max(start_byte, end_byte))));
    return r;
  }

  // A 1-based (line, code point column) as a byte offset of the text.
  static uint32_t byte_of(const lsp::LineIndex& index, const Position& p) {
    const uint32_t line = p.line == 0 ? 0 : p.line - 1;
    uint32_t i = index.to_byte({line, 0});
    const uint32_t end = index.line_end(line);
    for (uint32_t col = 1; col < p.column && i < end; ++col) {
      ++i;
      while (i < end && (static_cast<unsigned char>(index.text()[i]) & 0xC0) == 0x80) ++i;
    }
    return i;
  }

  static int lsp_severity(Severity s) {
    switch (s) {
      case Severity::Error: return 1;
      case Severity::Warning: return 2;
      case Severity::Info: return 3;
    }
    return 2;
  }

  bool own(const Document& d, const Finding& f) const { return f.path.empty() || f.path == d.path; }

  Value diagnostic(const Document& d, const lsp::LineIndex& index, const Finding& f) const {
    std::string message = f.message;
    if (!f.fix_hint.empty()) message += "\nhelp: " + f.fix_hint;
    for (const auto& n : f.notes) message += "\nnote: " + n.message;
    Value diag;
    diag.set("range", range(index, f.span.start_byte + d.bom, f.span.end_byte + d.bom));
    diag.set("severity", lsp_severity(f.severity));
    diag.set("code", f.rule ? f.rule->code : std::string_view("PFL000"));
    diag.set("source", "perflint");
    diag.set("message", message);
    return diag;
  }

  void publish(const Document& d) {
    const lsp::LineIndex index(d.text);
    Value diags = json::Array{};
    for (const auto& f : d.result.findings)
      if (own(d, f)) diags.push(diagnostic(d, index, f));
    for (const auto& e : d.result.errors) {
      // A syntax error at its place; a file perflint cannot read (NUL bytes, bad UTF-8) at the top.
      const uint32_t at = e.position ? byte_of(index, *e.position) : 0;
      Value diag;
      diag.set("range", range(index, at, e.position ? index.line_end(index.to_lsp(at).line) : at));
      diag.set("severity", 1);
      diag.set("source", "perflint");
      diag.set("message", e.message);
      diags.push(std::move(diag));
    }
    for (const auto& n : d.result.notices) {
      if (!n.position) continue;
      const uint32_t at = byte_of(index, *n.position);
      Value diag;
      diag.set("range", range(index, at, index.line_end(index.to_lsp(at).line)));
      diag.set("severity", 2);
      diag.set("source", "perflint");
      diag.set("message", n.message);
      diags.push(std::move(diag));
    }
    Value p;
    p.set("uri", d.uri);
    p.set("version", d.version);
    p.set("diagnostics", std::move(diags));
    notify("textDocument/publishDiagnostics", std::move(p));
  }

  // --- code actions ------------------------------------------------------------------------------

  static bool wanted(const Node& params, std::string_view kind) {
    const Node* context = params.get("context");
    const Node* only = context ? context->get("only") : nullptr;
    if (!only || !only->is_array()) return true;
    for (const auto& k : only->items)
      if (k.kind == Node::Kind::String &&
          (kind == k.str || (kind.size() > k.str.size() && kind.starts_with(k.str) && kind[k.str.size()] == '.')))
        return true;
    return false;
  }

  Value text_edit(const Document& d, const lsp::LineIndex& index, uint32_t start, uint32_t end,
                  const std::string& text) const {
    Value e;
    e.set("range", range(index, start + d.bom, end + d.bom));
    e.set("newText", text);
    return e;
  }

  Value action(const Document& d, std::string title, const char* kind, Value edits, std::optional<Value> diag,
               bool preferred) const {
    Value changes;
    changes.set(d.uri, std::move(edits));
    Value edit;
    edit.set("changes", std::move(changes));
    Value a;
    a.set("title", std::move(title));
    a.set("kind", kind);
    if (diag) {
      Value ds = json::Array{};
      ds.push(std::move(*diag));
      a.set("diagnostics", std::move(ds));
    }
    if (preferred) a.set("isPreferred", true);
    a.set("edit", std::move(edit));
    return a;
  }

  Value code_actions(const Node& params) {
    Value out = json::Array{};
    Document* d = find(params);
    if (!d) return out;
    const lsp::LineIndex index(d->text);
    const Node& r = require(params, "range", Node::Kind::Object);
    const uint32_t from = index.to_byte(position(r, "start")), to = index.to_byte(position(r, "end"));
    bool any_safe_fix = false;
    for (const auto& f : d->result.findings) {
      if (!own(*d, f)) continue;
      if (f.fix && fix_applies(*f.fix, false)) any_safe_fix = true;
      const uint32_t fs = f.span.start_byte + d->bom, fe = f.span.end_byte + d->bom;
      if (fs > to || from > fe) continue;
      const std::string code(f.rule ? f.rule->code : "PFL000");
      if (f.fix && !f.fix->edits.empty() && wanted(params, "quickfix")) {
        Value edits = json::Array{};
        for (const auto& e : f.fix->edits) edits.push(text_edit(*d, index, e.start_byte, e.end_byte, e.replacement));
        std::string title = code + ": " + f.fix->title;
        if (!f.fix->safe) title += " (unsafe: check the change before keeping it)";
        out.push(action(*d, std::move(title), "quickfix", std::move(edits), diagnostic(*d, index, f), f.fix->safe));
      }
      // "# perflint: ignore[CODE]" at the end of the finding's first line; not after a backslash,
      // where a comment would end the continued line.
      const uint32_t line = index.to_lsp(fs).line;
      const uint32_t eol = index.line_end(line);
      if (wanted(params, "quickfix") && !(eol > 0 && d->text[eol - 1] == '\\')) {
        Value edits = json::Array{};
        Value e;
        e.set("range", range(index, eol, eol));
        e.set("newText", "  # perflint: ignore[" + code + "]");
        edits.push(std::move(e));
        out.push(action(*d, "Suppress " + code + " on this line", "quickfix", std::move(edits),
                        diagnostic(*d, index, f), false));
      }
    }
    if (any_safe_fix && wanted(params, "source.fixAll.perflint")) {
      if (std::optional<Prepared> p = prepare(*d); p && !p->excluded) {
        FileProjectContext project;
        const FixedFile fixed = fix_buffer(d->path, d->text, *p->rules, parser_, false, &project);
        if (fixed.changed && fixed.bytes != d->text) {
          Value edits = json::Array{};
          Value e;
          e.set("range", range(index, 0, static_cast<uint32_t>(d->text.size())));
          e.set("newText", fixed.bytes);
          edits.push(std::move(e));
          out.push(action(*d, "perflint: apply every safe fix (" + std::to_string(fixed.applied) + ")",
                          "source.fixAll.perflint", std::move(edits), std::nullopt, false));
        }
      }
    }
    return out;
  }

  // --- hover -------------------------------------------------------------------------------------

  Value hover(const Node& params) {
    Document* d = find(params);
    if (!d) return Value();
    const lsp::LineIndex index(d->text);
    const uint32_t at = index.to_byte(position(params, "position"));
    for (const auto& f : d->result.findings) {
      if (!own(*d, f) || !f.rule) continue;
      const uint32_t fs = f.span.start_byte + d->bom, fe = f.span.end_byte + d->bom;
      if (at < fs || at > fe) continue;
      std::string md = "**" + std::string(f.rule->code) + " " + std::string(f.rule->name) + "** (" +
                       std::string(to_string(f.severity)) + ")\n\n" + f.message + "\n\n";
      if (!f.fix_hint.empty()) md += "*help:* " + f.fix_hint + "\n\n";
      const std::string_view doc = rule_doc(f.rule->code);
      md += "---\n\n" + (doc.empty() ? std::string(f.rule->summary) : std::string(doc));
      Value contents;
      contents.set("kind", "markdown");
      contents.set("value", md);
      Value h;
      h.set("contents", std::move(contents));
      h.set("range", range(index, fs, fe));
      return h;
    }
    return Value();
  }

  const Options& options_;
  Transport& io_;
  std::string cwd_;
  ts::Parser parser_;
  std::map<std::string, Document> docs_;
  std::string last_config_error_;
  bool initialized_ = false;
  bool shutdown_ = false;
  int exit_code_ = 1;
};

}  // namespace

int run_server(const Options& options, int in_fd, int out_fd) {
  Transport transport(in_fd, out_fd);
  Server server(options, transport);
  std::string body, error;
  for (;;) {
    switch (transport.next(body, error)) {
      case Transport::Status::Message:
        if (!server.handle(body)) return server.exit_code();
        break;
      case Transport::Status::End:
        // The client went away: without a shutdown first, that is an abnormal end.
        if (!server.shut_down()) log("the input ended without shutdown and exit");
        return server.shut_down() ? 0 : 1;
      case Transport::Status::Broken:
        log("stopping: " + error + " (the stream cannot be resynchronised)");
        return 1;
    }
  }
}

}  // namespace perflint
