// probe-merge (see probe_merge.hpp). A run directory holds `evidence.json` (one process) or
// `evidence.json.rank<R>` (ranks; `.steps` when a rank died before writing it); the rank each file
// belongs to is the one its evidence records (the global RANK), so the directories of several nodes
// merge without renaming anything.
#include "cli/probe_merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "cli/probe_cmd.hpp"
#include "probe/evidence_log.hpp"

namespace perflint {

namespace {

namespace fs = std::filesystem;

struct Found {
  std::vector<probe::Evidence> ranks;  // sorted by rank
  std::string error;
};

Found collect(const std::vector<std::string>& dirs) {
  Found out;
  std::map<int, std::string> seen;  // rank -> file
  const std::regex rank_file(R"(evidence\.json\.rank(\d+)(\.steps)?)");
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      out.error = dir + ": not a directory (probe-merge reads the directories `perflint --probe --evidence-dir` wrote)";
      return out;
    }
    std::vector<std::string> bases;  // evidence paths, without .steps
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      std::smatch m;
      if (std::regex_match(name, m, rank_file)) {
        const std::string base = (fs::path(dir) / ("evidence.json.rank" + m[1].str())).string();
        if (std::find(bases.begin(), bases.end(), base) == bases.end()) bases.push_back(base);
      }
    }
    if (bases.empty() && (fs::exists(fs::path(dir) / "evidence.json") || fs::exists(fs::path(dir) / "evidence.json.steps")))
      bases.push_back((fs::path(dir) / "evidence.json").string());
    if (bases.empty()) {
      out.error = dir + ": no probe evidence in it (evidence.json or evidence.json.rank<R>, written by `perflint --probe "
                        "--evidence-dir " + dir + "`)";
      return out;
    }
    std::sort(bases.begin(), bases.end());
    for (const auto& base : bases) {
      Expected<probe::Evidence> e = fs::exists(base) ? probe::read_evidence(base) : probe::recover_evidence(base);
      if (!e) {
        out.error = e.error().message;
        return out;
      }
      if (auto [it, fresh] = seen.emplace(e->rank, base); !fresh) {
        out.error = "rank " + std::to_string(e->rank) + " twice: " + it->second + " and " + base +
                    " (each node's run must have its own ranks: torchrun's --node_rank, or RANK)";
        return out;
      }
      out.ranks.push_back(std::move(*e));
    }
  }
  std::sort(out.ranks.begin(), out.ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace

Expected<std::string> merged_script(const std::vector<std::string>& dirs) {
  Found found = collect(dirs);
  if (!found.error.empty()) return make_error(found.error);
  const std::string& script = found.ranks.front().script;
  if (script.empty()) return make_error("the evidence names no script: pass it with --script FILE");
  std::error_code ec;
  if (!fs::is_regular_file(script, ec))
    return make_error("the evidence's script " + script + " is not here (another machine's path?): pass it with --script FILE");
  return script;
}

int merge_probe_evidence(const Options& o, std::vector<FileResult>& results, ProbeSummary& s,
                         std::vector<probe::Evidence>* ranks) {
  Found found = collect(o.merge_dirs);
  if (!found.error.empty()) {
    s.error = found.error;
    return 2;
  }
  const probe::Evidence& first = found.ranks.front();
  s.script = o.paths.empty() ? first.script : o.paths.front();
  s.python = first.python;
  s.python_source = "rank " + std::to_string(first.rank) + "'s evidence";
  s.steps_requested = first.steps_requested;
  s.warmup = first.warmup;
  summarize_evidence(first, s, results);
  s.overhead = "merged from " + std::to_string(found.ranks.size()) + " evidence file(s) in " +
               std::to_string(o.merge_dirs.size()) + " director" + (o.merge_dirs.size() == 1 ? "y" : "ies");
  if (found.ranks.size() > 1) {
    for (const auto& e : found.ranks) {
      RankRow row;
      row.rank = e.rank;
      fill_rank_figures(e, row);
      row.ended = e.reached_steps() ? "reached the steps" : "ended: " + e.exit_reason;
      if (!e.reached_steps() && !e.traceback.empty()) row.ended += ": " + error_line(e.traceback);
      s.ranks.push_back(std::move(row));
    }
    set_straggler(found.ranks, s);
  }
  const bool reached = first.reached_steps();
  if (ranks) *ranks = std::move(found.ranks);
  return reached ? 0 : 3;
}

}  // namespace perflint
