// Process management for the probe (see runner.hpp): fork + exec in a new process group, a pipe
// that the parent drains into the log, a poll loop that enforces the timeout and interrupts.
#include "probe/runner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "util/io.hpp"

namespace perflint::probe {
namespace {

std::atomic<int> g_interrupt{0};  // the signal that asked to stop; 0: none

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string dirs(path);
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

struct Child {
  pid_t pid;
  std::string comm;
  bool zombie;
  pid_t pgid;  // its process group: the script's, unless it left it (setsid)
};

// The processes whose parent is this process (from /proc), with their command names.
std::vector<Child> own_children() {
  std::vector<Child> out;
  const pid_t self = ::getpid();
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (const dirent* ent = ::readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(ent->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    // (Not an ifstream: the process may end between the open and the read, which then fails with
    // ESRCH, and a filebuf throws from underflow on that: a SIGTERM'd probe exited 2, not 3.)
    const std::string all = read_text_upto(std::string("/proc/") + ent->d_name + "/stat", 4096);
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so parse from the last ')'.
    const auto open = all.find('(');
    const auto close = all.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    long ppid = 0, pgrp = 0;
    char state = 0;
    if (std::sscanf(all.c_str() + close + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    if (ppid == self)
      out.push_back({static_cast<pid_t>(pid), all.substr(open + 1, close - open - 1), state == 'Z', static_cast<pid_t>(pgrp)});
  }
  ::closedir(d);
  return out;
}

}  // namespace

void request_interrupt(int sig) { g_interrupt = sig > 0 ? sig : SIGINT; }
void reset_interrupt() { g_interrupt = 0; }
bool interrupted() { return g_interrupt != 0; }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(sig);
  }
}

std::optional<PythonChoice> choose_python(const std::string& flag, const std::string& config) {
  if (!flag.empty()) return PythonChoice{flag, "--python"};
  if (!config.empty()) return PythonChoice{config, "config"};
  if (const char* e = std::getenv("PERFLINT_PYTHON"); e && *e) return PythonChoice{e, "PERFLINT_PYTHON"};
  if (const char* v = std::getenv("VIRTUAL_ENV"); v && *v) {
    const std::string p = std::string(v) + "/bin/python";
    if (executable(p)) return PythonChoice{p, "VIRTUAL_ENV"};
  }
  const std::string p = on_path("python3");
  if (!p.empty()) return PythonChoice{p, "PATH"};
  return std::nullopt;
}

std::string find_cupti_library() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const auto dir = exe.parent_path();
  for (const auto& candidate : {dir / "libperflint_cupti.so", dir.parent_path() / "lib" / "perflint" / "libperflint_cupti.so"})
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
  return {};
}

std::string find_shim_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const auto dir = exe.parent_path();
  for (const auto& candidate : {dir / "shim", dir.parent_path() / "share" / "perflint" / "shim"})
    if (std::filesystem::exists(candidate / "perflint_probe" / "__main__.py", ec)) return candidate.string();
  return {};
}

Expected<RunOutcome> run_probe(const RunnerOptions& o) {
  if (o.python.find('/') != std::string::npos ? !executable(o.python) : on_path(o.python).empty())
    return make_error("cannot run the interpreter '" + o.python + "': not found or not executable");
  const int log_fd = ::open(o.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return make_error(o.log_path + ": cannot create the log: " + std::strerror(errno));
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(log_fd);
    return make_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }

  // Everything the child needs is built before fork (no allocation after it).
  std::vector<std::string> argv_s = {o.python, "-m", "perflint_probe", "--steps", std::to_string(o.steps),
                                     "--warmup", std::to_string(o.warmup), "--out", o.evidence_path};
  for (const auto& fix : o.apply) argv_s.insert(argv_s.end(), {"--apply", fix});
  if (o.nproc > 1) argv_s.insert(argv_s.end(), {"--nproc", std::to_string(o.nproc)});
  if (!o.launcher.empty()) {
    argv_s.insert(argv_s.end(), {"--launch", "--"});
    argv_s.insert(argv_s.end(), o.launcher.begin(), o.launcher.end());
  } else {
    if (!o.module.empty()) argv_s.insert(argv_s.end(), {"--module", o.module, "--"});
    else argv_s.insert(argv_s.end(), {"--", o.script});
    argv_s.insert(argv_s.end(), o.args.begin(), o.args.end());
  }
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string pythonpath = "PYTHONPATH=" + o.shim_dir;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += std::string(":") + old;
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0 && std::strncmp(*e, "PYTHONUNBUFFERED=", 17) != 0) env_s.emplace_back(*e);
  env_s.push_back(pythonpath);
  env_s.push_back("PYTHONUNBUFFERED=1");
  if (!o.cupti_library.empty()) {
    env_s.push_back("CUDA_INJECTION64_PATH=" + o.cupti_library);
    env_s.push_back("PERFLINT_CUPTI_OUT=" + o.evidence_path + ".cupti.json");
  }
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  RunOutcome out;
  if (g_interrupt) {  // asked to stop before this run began: do not start the script
    ::close(log_fd);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    out.end = RunOutcome::End::Interrupted;
    out.interrupt_signal = g_interrupt;
    return out;
  }
  // Orphans of the script's tree come back to us, not to init, while it runs: they are stopped at
  // the end (a daemon started with setsid is no longer in the group that the kill reaches).
  int was_subreaper = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper, 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  std::set<pid_t> children_before;
  for (const auto& c : own_children()) children_before.insert(c.pid);

  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::prctl(PR_SET_CHILD_SUBREAPER, was_subreaper, 0, 0, 0);
    ::close(log_fd);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return make_error(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (o.python.find('/') != std::string::npos) ::execve(o.python.c_str(), argv.data(), envp.data());
    else ::execvpe(o.python.c_str(), argv.data(), envp.data());
    const char msg[] = "perflint: cannot exec the interpreter\n";
    write_all(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent: no race with the child's own call
  ::close(pipe_fds[1]);

  bool stopping = false;
  Clock::time_point stop_sent{};
  bool pipe_open = true;
  int status = 0;
  bool reaped = false;
  Clock::time_point reaped_at{};
  // Processes adopted after the script ended (they left its group): SIGTERM at once, SIGKILL after
  // the grace, each named once in the outcome.
  std::set<pid_t> strays_seen;
  bool strays_killed = false;
  Clock::time_point strays_since{};
  auto stop_strays = [&] {
    bool alive = false;
    for (const auto& c : own_children()) {
      if (c.pid == pid || children_before.count(c.pid)) continue;
      if (c.zombie) {  // an adopted process that ended by itself (named only if it was running)
        int ignored = 0;
        ::waitpid(c.pid, &ignored, WNOHANG);
        continue;
      }
      alive = true;
      // Still in the script's group (a DataLoader worker adopted as it dies): the group's SIGKILL
      // has reached it; wait for it, but it never left the group, so it is no stray to name.
      if (c.pgid == pid) continue;
      if (strays_seen.insert(c.pid).second) {
        out.strays.push_back("pid " + std::to_string(c.pid) + " (" + c.comm + ")");
        ::kill(c.pid, SIGTERM);
        if (strays_seen.size() == 1) strays_since = Clock::now();
      } else if (seconds_since(strays_since) > o.kill_grace_s) {
        ::kill(c.pid, SIGKILL);
        strays_killed = true;
      }
    }
    return alive;
  };
  char buf[1 << 15];
  while (!reaped || pipe_open) {
    if (pipe_open) {
      pollfd p{pipe_fds[0], POLLIN, 0};
      const int r = ::poll(&p, 1, 100);
      if (r > 0) {
        const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
        if (n > 0) {
          write_all(log_fd, buf, static_cast<size_t>(n));
          if (o.show_output) write_all(STDERR_FILENO, buf, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          pipe_open = false;  // every writer (the script and its workers) has closed it
        }
      }
    } else {
      ::usleep(20000);
    }
    if (reaped) stop_strays();
    // A stray that outlives even SIGKILL (uninterruptible sleep) must not hold the run forever.
    if (reaped && pipe_open && seconds_since(reaped_at) > o.kill_grace_s + 2.0) pipe_open = false;
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      reaped_at = Clock::now();
      // The script is gone: whatever it left in its group (DataLoader workers) goes too, and the
      // pipe then closes.
      ::kill(-pid, SIGKILL);
    }
    if (!reaped) {
      const double elapsed = seconds_since(start);
      if (o.tick) o.tick(elapsed);
      if (!stopping && (elapsed > o.timeout_s || g_interrupt)) {
        out.end = g_interrupt ? RunOutcome::End::Interrupted : RunOutcome::End::TimedOut;
        out.interrupt_signal = g_interrupt;
        stopping = true;
        stop_sent = Clock::now();
        ::kill(-pid, SIGTERM);  // the shim writes its evidence on SIGTERM
      } else if (stopping && seconds_since(stop_sent) > o.kill_grace_s) {
        ::kill(-pid, SIGKILL);
      }
    }
  }
  // Strays that keep running without the pipe (they closed it, or were sent to /dev/null): wait for
  // them within the grace, then SIGKILL, so that nothing started by the script is left behind.
  for (int after_kill = 0; stop_strays(); after_kill += strays_killed ? 1 : 0) {
    if (after_kill > 100) break;  // SIGKILL sent 2 s ago: in uninterruptible sleep; named anyway
    ::usleep(20000);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, was_subreaper, 0, 0, 0);
  ::close(pipe_fds[0]);
  ::close(log_fd);
  out.wall_s = seconds_since(start);
  if (!stopping) {
    if (WIFEXITED(status)) {
      out.end = RunOutcome::End::Exited;
      out.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      out.end = RunOutcome::End::Signaled;
      out.signal = WTERMSIG(status);
    }
  }
  return out;
}

}  // namespace perflint::probe
