// Helpers for end-to-end tests: a scratch directory tree and running the built perflint binary
// with captured stdout, stderr and exit code (fork + exec, so no shell quoting is involved).
#pragma once
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace perflint::testing {

// A fresh directory under the system temp dir, removed (with everything in it) at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "perflint-test-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    // Restore permissions first: a chmod 000 directory would otherwise survive remove_all.
    for (auto it = std::filesystem::recursive_directory_iterator(
             path_, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      ::chmod(it->path().c_str(), 0755);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

  // Writes `content` (binary) to `rel`, creating parent directories.
  std::string write(const std::string& rel, const std::string& content) const {
    const auto p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string mkdir(const std::string& rel) const {
    std::filesystem::create_directories(path_ / rel);
    return (path_ / rel).string();
  }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal or timed out
  bool timed_out = false;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `program` with `args` in `cwd`. `env` entries override (empty value: unset) the inherited
// environment; NO_COLOR is unset unless given so that tests see the default behaviour.
// `drop_root`: when running as root, run it as nobody (65534) so that permission checks bite.
// Standard input is `stdin_text` when given, else /dev/null (a test never waits on a terminal).
inline RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                             const std::string& cwd = ".", std::map<std::string, std::string> env = {},
                             int timeout_s = 120, bool drop_root = false,
                             const std::optional<std::string>& stdin_text = std::nullopt) {
  TempDir capture;
  const std::string out_path = (capture.path() / "stdout").string();
  const std::string err_path = (capture.path() / "stderr").string();
  const std::string in_path = stdin_text ? (capture.path() / "stdin").string() : std::string("/dev/null");
  if (stdin_text) std::ofstream(in_path, std::ios::binary) << *stdin_text;

  std::vector<std::string> argv_s{program};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  if (!env.count("NO_COLOR")) env["NO_COLOR"] = "";
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (!env.count(key)) env_s.push_back(kv);
  }
  for (const auto& [k, v] : env)
    if (!v.empty()) env_s.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int i = ::open(in_path.c_str(), O_RDONLY);
    if (o < 0 || e < 0 || i < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0 || ::dup2(i, 0) < 0) ::_exit(127);
    if (drop_root && ::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      ::_exit(126);
    if (::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  RunResult r;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// The perflint the CLI tests run: the one built beside them, or PERFLINT_TEST_BINARY (the sanitizer
// step of CI runs the CLI tests against a perflint built with ASan + UBSan: scripts/ci-sanitize.sh).
inline std::string perflint_binary() {
  const char* other = std::getenv("PERFLINT_TEST_BINARY");
  return other && *other ? std::string(other) : std::string(PERFLINT_BINARY);
}

// Runs the built perflint (see run_program).
inline RunResult run_perflint(const std::vector<std::string>& args, const std::string& cwd = ".",
                              std::map<std::string, std::string> env = {}, int timeout_s = 120,
                              bool drop_root = false) {
  return run_program(perflint_binary(), args, cwd, std::move(env), timeout_s, drop_root);
}

// Runs the built perflint with `input` on its standard input.
inline RunResult run_perflint_stdin(const std::vector<std::string>& args, const std::string& input,
                                    const std::string& cwd = ".") {
  return run_program(perflint_binary(), args, cwd, {}, 120, false, input);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace perflint::testing
