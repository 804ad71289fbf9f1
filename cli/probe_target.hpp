// What `perflint --probe -m MODULE` and `perflint --probe -- LAUNCHER ...` run, as a file to lint:
// the module's source, or the training script a launcher command names (torchrun, python -m
// torch.distributed.run, accelerate launch, deepspeed, or any command whose first script argument is
// a .py file).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "parser/expected.hpp"

namespace perflint {

// MODULE (`pkg.sub.train`) as Python's `-m` finds it from `cwd`, then $PYTHONPATH's directories:
// pkg/sub/train.py, or pkg/sub/train/__main__.py for a package.
Expected<std::string> module_file(const std::string& module, const std::string& cwd);

// The script (or `-m`/`--module` module, resolved) a launcher command runs. Options before it are
// skipped, with their values: `--opt=value`, a known flag, or `--opt value`.
Expected<std::string> launcher_script(const std::vector<std::string>& command, const std::string& cwd);

// `python [-u ...] SCRIPT ARGS` or `python -m MODULE ARGS` after `--probe --` is no launcher: the
// interpreter runs the script itself. Set: the interpreter, and script/module with its arguments.
struct PlainPython {
  std::string python;
  std::string script;  // or
  std::string module;
  std::vector<std::string> args;
};
std::optional<PlainPython> plain_python(const std::vector<std::string>& command);

}  // namespace perflint
