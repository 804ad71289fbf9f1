// The file behind a module or a launcher command (see probe_target.hpp).
#include "cli/probe_target.hpp"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string_view>

namespace perflint {

namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Options of the launchers we know that take no value (everything else starting with '-' and
// without '=' takes the next argument as its value).
const std::set<std::string_view>& flags() {
  static const std::set<std::string_view> f{
      // torchrun / torch.distributed.run / torch.distributed.launch
      "--standalone", "--no_python", "--no-python", "--run_path", "--run-path", "--use_env", "--use-env",
      // accelerate launch
      "--cpu", "--multi_gpu", "--tpu", "--use_deepspeed", "--use_fsdp", "--use_megatron_lm", "--debug", "-q", "--quiet",
      // deepspeed
      "--autotuning", "--no_local_rank", "--no_ssh_check", "--force_multi", "--save_pid", "--enable_each_rank_log",
      // python's own
      "-u", "-O", "-OO", "-B", "-E", "-s", "-S", "-I", "-b", "-bb", "-v", "-q"};
  return f;
}

bool is_python(std::string_view exe) {
  const std::string_view base = exe.substr(exe.rfind('/') == std::string_view::npos ? 0 : exe.rfind('/') + 1);
  return base.starts_with("python");
}

}  // namespace

Expected<std::string> module_file(const std::string& module, const std::string& cwd) {
  if (module.empty() || module.front() == '.' || module.back() == '.' || module.find("..") != std::string::npos)
    return make_error("-m " + module + ": not a module name (write it as Python's -m takes it: pkg.train)");
  std::string rel = module;
  for (char& c : rel)
    if (c == '.') c = '/';
  std::vector<fs::path> roots{cwd};
  if (const char* pp = std::getenv("PYTHONPATH"); pp && *pp) {
    std::string_view rest(pp);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) roots.push_back(fs::path(cwd) / fs::path(std::string(dir)));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (size_t k = 0; k < roots.size(); ++k) {
    // Under the current directory the path stays relative, as a script named on the command line.
    const fs::path shown = k == 0 ? fs::path() : roots[k];
    if (is_file(roots[k] / (rel + ".py"))) return (shown / (rel + ".py")).lexically_normal().string();
    if (is_file(roots[k] / rel / "__main__.py")) return (shown / rel / "__main__.py").lexically_normal().string();
  }
  return make_error("-m " + module + ": no " + rel + ".py or " + rel + "/__main__.py under " + cwd +
                    " or $PYTHONPATH (the probe runs it as `python -m " + module + "` would, from here)");
}

Expected<std::string> launcher_script(const std::vector<std::string>& command, const std::string& cwd) {
  if (command.empty()) return make_error("the launcher command after `--` is empty");
  size_t i = 1;
  // `python -m torch.distributed.run ...`, `python3 -u -m torch.distributed.launch ...`
  if (is_python(command[0])) {
    while (i < command.size() && flags().count(command[i])) ++i;
    if (i + 1 < command.size() && command[i] == "-m") i += 2;
  } else if (std::string_view(command[0]).ends_with("accelerate") && i < command.size() && command[i] == "launch") {
    ++i;
  }
  bool as_module = false;
  while (i < command.size()) {
    const std::string& a = command[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-m" || a == "--module") {
      as_module = true;
      ++i;
      continue;
    }
    if (a.size() < 2 || a[0] != '-') break;  // the script (or module)
    if (a.find('=') != std::string::npos || flags().count(a)) {
      ++i;
      continue;
    }
    i += 2;  // an option and its value
  }
  if (i >= command.size())
    return make_error("cannot find the training script in the launcher command `" + command[0] +
                      " ...`: put the script (a .py file) after the launcher's options, as torchrun takes it");
  const std::string& target = command[i];
  if (as_module) return module_file(target, cwd);
  const fs::path p = fs::path(target).is_absolute() ? fs::path(target) : fs::path(cwd) / target;
  if (is_file(p)) return target;
  return make_error("the launcher command runs " + target + ", which is not a file (from " + cwd +
                    "); the probe lints the script the launcher starts");
}

std::optional<PlainPython> plain_python(const std::vector<std::string>& command) {
  if (command.size() < 2 || !is_python(command[0])) return std::nullopt;
  size_t i = 1;
  while (i < command.size() && flags().count(command[i])) ++i;
  if (i >= command.size()) return std::nullopt;
  PlainPython p;
  p.python = command[0];
  if (command[i] == "-m") {
    if (i + 1 >= command.size()) return std::nullopt;
    // python -m torch.distributed.run / .launch is a launcher; any other module is the program.
    if (std::string_view(command[i + 1]).starts_with("torch.distributed")) return std::nullopt;
    p.module = command[i + 1];
    i += 2;
  } else if (command[i].empty() || command[i][0] == '-') {
    return std::nullopt;  // -c CODE, -X options: not a script we can probe
  } else {
    p.script = command[i++];
  }
  p.args.assign(command.begin() + static_cast<std::ptrdiff_t>(i), command.end());
  return p;
}

}  // namespace perflint
