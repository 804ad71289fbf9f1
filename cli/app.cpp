// The `perflint` program: options -> config -> rule sets -> discovery -> parallel lint -> report.
// Expected failures are messages and exit code 2; the one catch for unexpected exceptions is here.
#include "cli/app.hpp"
#include "cli/cache.hpp"
#include "cli/calibrate_cmd.hpp"
#include "cli/probe_cmd.hpp"
#include "cli/probe_merge.hpp"
#include "cli/probe_target.hpp"
#include "cli/project_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "cli/discover.hpp"
#include "cli/fix.hpp"
#include "util/io.hpp"
#include "cli/options.hpp"
#include "cli/runner.hpp"
#include "cli/selection.hpp"
#include "cli/server.hpp"
#include "cli/show.hpp"
#include "probe/compare.hpp"
#include "probe/ranks.hpp"
#include "reports/report.hpp"
#include "reports/timeline.hpp"
#include "rules/engine.hpp"
#include "rules/registry.hpp"

namespace perflint {

namespace {

namespace fs = std::filesystem;

constexpr int kClean = 0;
constexpr int kFindings = 1;
constexpr int kError = 2;

void print(std::FILE* stream, const std::string& text) {
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), stream);
}

bool write_stdout(const std::string& text) {
  print(stdout, text);
  return std::fflush(stdout) == 0 && !std::ferror(stdout);
}

// "path: notice: ..." on stderr; "path:line:col: notice: ..." where the notice has a place.
std::string notice_line(const Notice& n, const std::string& fallback_path) {
  std::string out = n.path.empty() ? fallback_path : n.path;
  if (n.position) out += ":" + std::to_string(n.position->line) + ":" + std::to_string(n.position->column);
  return out + ": notice: " + n.message + "\n";
}

bool want_color(const Options& o) {
  if (o.color == ColorChoice::Always) return true;
  if (o.color == ColorChoice::Never) return false;
  // no-color.org: any non-empty NO_COLOR disables colour; an explicit --color always still wins.
  if (const char* nc = std::getenv("NO_COLOR"); nc != nullptr && *nc != '\0') return false;
  if (const char* term = std::getenv("TERM"); term != nullptr && std::string_view(term) == "dumb") return false;
  return o.output.empty() && ::isatty(STDOUT_FILENO) == 1;
}

std::string current_dir() {
  std::error_code ec;
  fs::path p = fs::current_path(ec);
  return ec ? std::string(".") : p.string();
}

// SARIF URIs are relative to the repository root so that code scanning can place them; outside a
// git checkout the current directory stands in for it.
std::string repository_root(const std::string& cwd) {
  std::error_code ec;
  for (fs::path p = cwd; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / ".git", ec)) return p.string();
    if (p == p.parent_path()) break;
  }
  return {};
}

// A probe report's measured steps (`compare`, `--baseline`); the error names the file.
Expected<probe::RunSteps> read_report_steps(const std::string& path) {
  const FileRead read = read_whole_file(path, 1ull << 30);
  if (read.status != FileRead::Status::Ok)
    return make_error(path + ": " + (read.status == FileRead::Status::Error ? read.error : std::string("over 1 GiB")));
  return probe::read_run_steps(read.bytes, path);
}

// `perflint compare BASE.json NEW.json`: 0 no regression, 1 regressed beyond --fail-on-regression, 2 error.
int run_compare_command(const Options& o) {
  auto base = read_report_steps(o.compare_files[0]);
  auto next = base ? read_report_steps(o.compare_files[1]) : base;
  if (!base || !next) {
    print(stderr, "error: " + (!base ? base.error().message : next.error().message) + "\n");
    return kError;
  }
  const probe::Comparison c = probe::compare_runs(*base, *next, o.fail_on_regression);
  const std::string text = o.format == OutputFormat::Json ? probe::comparison_json(c, *base, *next)
                                                          : probe::comparison_text(c, *base, *next);
  if (!write_stdout(text)) return kError;
  return c.regressed ? kFindings : kClean;
}

int run_rules_command(const Options& o) {
  if (o.command == Options::Command::Rules) {
    if (o.format == OutputFormat::Json) return write_stdout(write_rule_list_json()) ? kClean : kError;
    if (o.format != OutputFormat::Text) {
      print(stderr, "error: `perflint rules` writes text or json (--output-format json)\n");
      return kError;
    }
    return write_stdout(write_rule_list(want_color(o))) ? kClean : kError;
  }
  if (find_rule(o.rule) == nullptr) {
    print(stderr, "error: unknown rule '" + o.rule + "'; run 'perflint rules' to list every code and name\n");
    return kError;
  }
  return write_stdout(write_rule_explanation(o.rule)) ? kClean : kError;
}


// All of standard input, in binary; false on a read error.
bool read_stdin(std::string& out) {
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

// Discovery errors and notices become results of their own; the report is sorted by path and a
// path that shows up twice (say, an error and a linted file) is reported once.
std::vector<FileResult> merge_results(std::vector<FileResult> linted, const Discovery& discovery) {
  for (const auto& e : discovery.errors) {
    FileResult r;
    r.path = e.path;
    r.errors.push_back(e);
    linted.push_back(std::move(r));
  }
  for (const auto& n : discovery.notices) {
    FileResult r;
    r.path = n.path;
    r.notices.push_back(n);
    linted.push_back(std::move(r));
  }
  std::stable_sort(linted.begin(), linted.end(), [](const FileResult& a, const FileResult& b) { return a.path < b.path; });
  std::vector<FileResult> out;
  for (auto& r : linted) {
    if (!out.empty() && out.back().path == r.path) {
      FileResult& m = out.back();
      m.findings.insert(m.findings.end(), r.findings.begin(), r.findings.end());
      m.errors.insert(m.errors.end(), r.errors.begin(), r.errors.end());
      m.notices.insert(m.notices.end(), r.notices.begin(), r.notices.end());
      m.lines = std::max(m.lines, r.lines);
      m.linted = m.linted || r.linted;
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

// The input file that `output` (-o) names, if any: same device and inode, so that links and other
// spellings of the path count too. An output that does not exist yet names nothing.
const std::string* output_input(const std::string& output, const Discovery& discovery) {
  struct stat out {};
  if (output.empty() || ::stat(output.c_str(), &out) != 0) return nullptr;
  for (const auto& path : discovery.files) {
    struct stat in {};
    if (::stat(path.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) return &path;
  }
  return nullptr;
}

int exit_code_for(const std::vector<FileResult>& results, bool exit_zero) {
  bool io = false, findings = false;
  for (const auto& r : results) {
    if (!r.findings.empty()) findings = true;
    for (const auto& e : r.errors) (e.kind == FileError::Kind::Syntax ? findings : io) = true;
  }
  if (io) return kError;
  return findings && !exit_zero ? kFindings : kClean;
}

// --diff: the changes --fix would make, as a unified diff on stdout; nothing is written. Exit 1 when
// there is something to fix, 2 on an I/O error.
int run_diff(const std::vector<LintJob>& jobs, const RunnerOptions& ro, const Discovery& discovery, const Options& o) {
  const bool unsafe = o.unsafe_fixes;
  RunnerOptions quiet = ro;
  quiet.keep_sources = false;
  FixRun fixed = fix_files(jobs, quiet, unsafe, false);
  std::vector<FileResult> results = merge_results(std::move(fixed.run.results), discovery);
  bool io = false;
  for (const auto& r : results) {
    for (const auto& e : r.errors)
      if (e.kind == FileError::Kind::Io) {
        io = true;
        print(stderr, e.path + ": error: " + e.message + "\n");
      }
    if (!o.quiet && !o.silent)
      for (const auto& n : r.notices) print(stderr, notice_line(n, r.path));
  }
  if (!o.silent && !write_stdout(fixed.diff)) {
    print(stderr, "error: cannot write the diff to standard output\n");
    return kError;
  }
  if (!o.quiet && !o.silent)
    print(stderr, fixed.applied == 0 ? std::string("No fixes available.\n")
                                   : "Would fix " + std::to_string(fixed.applied) +
                                         (fixed.applied == 1 ? " finding" : " findings") + " in " +
                                         std::to_string(fixed.files_changed) +
                                         (fixed.files_changed == 1 ? " file.\n" : " files.\n"));
  if (io) return kError;
  return fixed.files_changed > 0 ? kFindings : kClean;
}

// --report-html / --trace (or the config's report-html / trace: next to -o FILE, else in the
// current directory). Returns false when a file could not be written (said on stderr).
bool write_probe_views(const Options& o, const Config& config, const std::vector<FileResult>& results,
                       const ReportOptions& report, const ProbeSummary& summary,
                       const std::vector<probe::Evidence>& ranks) {
  auto beside = [&](const char* suffix) {
    if (o.output.empty()) return std::string("perflint-probe") + suffix;
    return (std::filesystem::path(o.output).replace_extension("").string()) + suffix;
  };
  const std::string html = !o.report_html.empty() ? o.report_html : config.report_html ? beside(".html") : "";
  const std::string trace = !o.trace.empty() ? o.trace : config.trace ? beside(".trace.json") : "";
  if (html.empty() && trace.empty()) return true;
  ProbeRunView view;
  view.summary = &summary;
  for (const auto& e : ranks) view.ranks.push_back(&e);
  if (const auto s = probe::find_straggler(view.ranks)) {
    view.straggler_rank = s->rank;
    view.straggler_text = s->text;
  }
  bool ok = true;
  auto write = [&](const std::string& path, const std::string& text, const char* what) {
    std::string err;
    if (write_whole_file(path, text, err)) return;
    print(stderr, std::string("error: cannot write the ") + what + " to " + path + ": " + err + "\n");
    ok = false;
  };
  if (!html.empty()) write(html, write_html_report(results, report, view), "HTML report");
  if (!trace.empty()) write(trace, write_trace(view), "trace");
  return ok;
}

int run_lint(const Options& o) {
  const std::string cwd = current_dir();
  // `perflint - --stdin-filename src/pkg/train.py`: the config that file would get.
  const std::string start = o.reads_stdin() && !o.stdin_filename.empty()
                                ? std::filesystem::absolute(o.stdin_filename).parent_path().string()
                                : cwd;
  Expected<Config> loaded = config_for(o, start, cwd);
  if (!loaded) {
    print(stderr, "error: " + loaded.error().message + "\n");
    return kError;
  }
  Config config = std::move(*loaded);
  if (std::string bad = check_selectors(o, config); !bad.empty()) {
    print(stderr, "error: " + bad + "\n");
    return kError;
  }

  const Selection selection = effective_selection(o, config);
  if (o.show_settings) {
    const RuleSet base = make_rule_set(selection.select, selection.ignore, config.severity);
    return write_stdout(show_settings_text(o, config, selection.select, selection.ignore, base)) ? kClean : kError;
  }

  if (o.probe) {  // the script must be a file before anything runs
    std::error_code ec;
    const auto st = std::filesystem::status(o.paths.front(), ec);
    const std::string why = ec || !std::filesystem::exists(st)      ? "no such file"
                            : std::filesystem::is_directory(st)      ? "is a directory, not a script"
                            : !std::filesystem::is_regular_file(st) ? "is not a regular file"
                                                                     : "";
    if (!why.empty()) {
      print(stderr, "error: --probe: " + o.paths.front() + ": " + why + "\n");
      return kError;
    }
  }
  // `-`: one job whose bytes are stdin, named by --stdin-filename (or "-"); nothing is discovered.
  std::string stdin_bytes;
  if (o.reads_stdin() && !read_stdin(stdin_bytes)) {
    print(stderr, std::string("error: cannot read standard input: ") + std::strerror(errno) + "\n");
    return kError;
  }
  Discovery discovery = o.reads_stdin() ? Discovery{{o.stdin_filename.empty() ? "-" : o.stdin_filename}, {}, {}}
                                        : discover_files(o.paths, DiscoverOptions{config.root, config.exclude,
                                                                                  config.respect_gitignore &&
                                                                                      !o.no_respect_gitignore});
  if (o.show_files) {
    for (const auto& e : discovery.errors) print(stderr, e.path + ": error: " + e.message + "\n");
    for (const auto& n : discovery.notices) print(stderr, notice_line(n, n.path));
    if (!write_stdout(show_files_text(discovery))) return kError;
    return discovery.errors.empty() ? kClean : kError;
  }
  if (const std::string* input = output_input(o.output, discovery)) {
    print(stderr, "error: -o " + o.output + " is the input file " + *input +
                      ": the report would overwrite it; choose another output file\n");
    return kError;
  }

  // One RuleSet per distinct combination of matching per-file-ignores, built before any thread starts.
  RuleSets rule_sets(config, selection);
  std::vector<LintJob> jobs;
  jobs.reserve(discovery.files.size());
  for (const auto& path : discovery.files)
    jobs.push_back({path, &rule_sets.for_file(path), o.reads_stdin() ? &stdin_bytes : nullptr});

  FileProjectContext project;  // sibling modules, summarised once for the whole run
  RunnerOptions ro;
  ro.project = &project;
  ro.jobs = o.jobs;
  ro.max_file_size = o.max_file_size.value_or(config.max_file_size);
  ro.keep_sources = o.format == OutputFormat::Text || o.format == OutputFormat::Sarif ||
                    (o.probe && (!o.report_html.empty() || config.report_html));  // the HTML's snippets
  if (o.diff) return run_diff(jobs, ro, discovery, o);
  FixRun fixed;
  if (o.fix) fixed = fix_files(jobs, ro, o.unsafe_fixes, true);
  // The result cache: for the plain lint (a fix rewrites files and lints them again in memory).
  std::optional<ResultCache> cache;
  const char* no_cache_env = std::getenv("PERFLINT_NO_CACHE");
  if (!o.fix && !o.reads_stdin() && !o.no_cache && !(no_cache_env && *no_cache_env && std::string(no_cache_env) != "0")) {
    std::string dir = o.cache_dir;
    if (dir.empty())
      if (const char* env = std::getenv("PERFLINT_CACHE_DIR"); env && *env) dir = env;
    if (dir.empty()) dir = (std::filesystem::path(cwd) / ".perflint_cache").string();
    cache.emplace(dir);
    ro.cache = &*cache;
    project.use_cache(&*cache);  // the linker's facts too: a second run parses nothing
  }
  LintRun run = o.fix ? std::move(fixed.run) : lint_files(jobs, ro);
  if (cache) {
    project.save_facts();
    cache->flush();
  }
  std::vector<FileResult> results = merge_results(std::move(run.results), discovery);

  ProbeSummary probe_summary;
  std::vector<probe::Evidence> probe_ranks;
  int probe_status = 0;
  if (o.probe) {
    probe_status = o.command == Options::Command::ProbeMerge
                       ? merge_probe_evidence(o, results, probe_summary, &probe_ranks)
                       : probe_script(o, config, results, probe_summary, &probe_ranks);
    if (probe_status == 2) {
      print(stderr, std::string(o.command == Options::Command::ProbeMerge ? "error: probe-merge: " : "error: --probe: ") + probe_summary.error + "\n");
      return kError;
    }
  }

  ReportOptions report;
  report.color = o.format == OutputFormat::Text && want_color(o);
  report.statistics = o.statistics;
  report.show_source = o.show_source;
  report.base_dir = repository_root(cwd);
  report.sources = &run.sources;
  report.unsafe_fixes = o.unsafe_fixes;
  report.summary = !o.quiet && !o.silent;
  // The fixable count is what --fix would apply (its loop run in memory), so the two agree. The loop
  // starts from this run's results, unless the probe has changed them.
  if (o.format == OutputFormat::Text && report.summary && !o.fix)
    report.fix_counts = count_fixes(jobs, ro, results, o.probe ? nullptr : &run.sources);
  if (o.probe) report.probe = &probe_summary;
  std::string text = write_report(o.format, results, report);
  if (o.fix) {
    size_t remaining = 0;
    for (const auto& r : results) remaining += r.findings.size();
    std::string line = "Fixed " + std::to_string(fixed.applied) + (fixed.applied == 1 ? " finding" : " findings") +
                       " (" + std::to_string(remaining) + " remaining)";
    if (fixed.files_failed > 0)
      line += "; " + std::to_string(fixed.files_failed) + (fixed.files_failed == 1 ? " file" : " files") +
              " could not be written (see the errors)";
    line += ".\n";
    if (o.quiet || o.silent) line.clear();
    // Keep machine-readable output clean: the line goes with the text report on stdout, else stderr.
    if (o.format == OutputFormat::Text && o.output.empty() && !o.reads_stdin()) text += line;
    else print(stderr, line);
  }

  int code = exit_code_for(results, o.exit_zero);
  if (o.probe && !write_probe_views(o, config, results, report, probe_summary, probe_ranks)) code = kError;
  if (o.probe && !o.baseline.empty()) {  // --baseline: this run against an earlier report
    auto base = read_report_steps(o.baseline);
    probe::RunSteps now;
    now.label = "this run";
    for (const auto& st : probe_summary.steps) {
      if (st.warmup) continue;
      now.wall_ms.push_back(st.wall_ms);
      if (!st.phases_ms) continue;
      if (now.phase_ms.empty()) now.phase_ms.resize(6);
      for (size_t i = 0; i < 6; ++i) now.phase_ms[i].push_back((*st.phases_ms)[i]);
    }
    if (now.phase_ms.size() == 6 && now.phase_ms[0].size() != now.wall_ms.size()) now.phase_ms.clear();
    if (!base) {
      print(stderr, "error: --baseline: " + base.error().message + "\n");
      code = kError;
    } else if (now.wall_ms.empty()) {
      print(stderr, "note: --baseline: this run measured no step, nothing to compare\n");
    } else {
      const probe::Comparison c = probe::compare_runs(*base, now, o.fail_on_regression);
      const std::string cmp = probe::comparison_text(c, *base, now);
      if (o.format == OutputFormat::Text && o.output.empty()) text += "\n" + cmp;
      else print(stderr, cmp);
      if (c.regressed && code != kError) code = 4;  // the median step regressed beyond the threshold
    }
  }
  if (probe_status == 3 && code != kError) code = 3;  // the script did not reach the steps
  // What could not be read, and notices (a FIFO skipped), go to stderr in every format, as ruff
  // does: stdout carries only the report (text with its syntax errors, or the JSON/SARIF document,
  // which also lists them).
  for (const auto& r : results) {
    for (const auto& e : r.errors)
      if (e.kind != FileError::Kind::Syntax)
        print(stderr, (e.path.empty() ? r.path : e.path) + ": error: " + e.message + "\n");
    if (!o.quiet && !o.silent)
      for (const auto& n : r.notices) print(stderr, notice_line(n, r.path));
  }
  if (o.silent && o.output.empty()) text.clear();  // -s: the exit code says it; -o FILE still gets the report
  if (o.fix && o.reads_stdin()) {
    // As ruff: the fixed text on stdout (a pipe back into the editor), the report on stderr unless -o.
    if (o.output.empty()) print(stderr, text);
    else if (std::string err; !write_whole_file(o.output, text, err)) {
      print(stderr, "error: cannot write the report to " + o.output + ": " + err + "\n");
      code = kError;
    }
    if (!write_stdout(fixed.stdin_fixed.value_or(stdin_bytes))) {
      print(stderr, "error: cannot write the fixed text to standard output\n");
      code = kError;
    }
    return code;
  }
  if (o.output.empty()) {
    if (!write_stdout(text)) {
      print(stderr, "error: cannot write the report to standard output\n");
      code = kError;
    }
  } else {
    std::string err;
    if (!write_whole_file(o.output, text, err)) {
      print(stderr, "error: cannot write the report to " + o.output + ": " + err + "\n");
      code = kError;
    }
  }
  return code;
}

}  // namespace

int run_cli(int argc, char** argv) {
  try {
    ParsedCommandLine parsed = parse_command_line(argc, argv);
    if (parsed.exit_now) {
      print(stdout, parsed.out);
      print(stderr, parsed.err);
      std::fflush(stdout);
      return parsed.exit_code;
    }
    const Options& o = parsed.options;
    if (o.command == Options::Command::Calibrate) return run_calibrate_command(o);
    if (o.command == Options::Command::Compare) return run_compare_command(o);
    if (o.command == Options::Command::Server) {
      if (o.probe || o.fix || o.diff) {
        print(stderr, "error: `perflint server` lints what the editor sends; --probe, --fix and --diff do not apply\n");
        return kError;
      }
      return run_server(o, STDIN_FILENO, STDOUT_FILENO);
    }
    if (o.command == Options::Command::ProbeMerge) {
      // The report lints the script the ranks ran: --script, else the path rank 0's evidence names.
      Expected<std::string> script = !o.merge_script.empty() ? Expected<std::string>(o.merge_script) : merged_script(o.merge_dirs);
      if (!script) {
        print(stderr, "error: probe-merge: " + script.error().message + "\n");
        return kError;
      }
      Options resolved = o;
      resolved.paths = {*script};
      return run_lint(resolved);
    }
    if (o.command != Options::Command::Lint) return run_rules_command(o);
    if (o.probe && (!o.module.empty() || o.launcher)) {
      // -m MODULE / a launcher command: the file it runs is what is linted (and named in the report).
      const std::string cwd = current_dir();
      Options resolved = o;
      if (o.launcher)
        if (auto plain = plain_python(o.script_args)) {  // `-- python3 train.py ARGS`: no launcher
          if (!o.python.empty() && o.python != plain->python) {
            print(stderr, "error: --probe: --python " + o.python + " and the command's " + plain->python +
                              ": name the interpreter once\n");
            return kError;
          }
          resolved.launcher = false;
          resolved.python = plain->python;
          resolved.module = plain->module;
          resolved.script_args = plain->args;
          if (!plain->script.empty()) resolved.paths = {plain->script};
          if (resolved.module.empty()) return run_lint(resolved);
        }
      Expected<std::string> file = !resolved.module.empty() ? module_file(resolved.module, cwd)
                                                             : launcher_script(resolved.script_args, cwd);
      if (!file) {
        print(stderr, "error: --probe: " + file.error().message + "\n");
        return kError;
      }
      resolved.paths = {*file};
      return run_lint(resolved);
    }
    return run_lint(o);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    print(stderr, std::string("error: internal error: ") + e.what() +
                      "\nThis is a bug in perflint; please report it with the input that caused it.\n");
    return kError;
  } catch (...) {
    std::fflush(stdout);
    print(stderr, "error: internal error (unknown exception)\n");
    return kError;
  }
}

}  // namespace perflint
