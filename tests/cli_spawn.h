// Helpers for tests that run the real attnlab executable (ATTNLAB_EXE): spawn it with
// arguments, capture exit code, stdout and stderr; a private temporary folder per test.
#pragma once
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace cli_test {

struct Ran {
  int code = -1;  // exit status; 128 + signal when killed by a signal
  bool signaled = false;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

inline bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// A fresh folder under $TMPDIR (or /tmp), removed when the object goes.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/attnlab-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path = buf.data();
  }
  ~TempDir() {
    const std::string cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", path.c_str());
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

// Runs ATTNLAB_EXE with args (no shell); stdout and stderr go to files in `dir`.
inline Ran run_attnlab(const std::vector<std::string>& args, const TempDir& dir) {
  const std::string out_path = dir / ".stdout", err_path = dir / ".stderr";
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || in < 0) _exit(127);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    std::vector<char*> argv;
    // ATTNLAB_EXE in the environment overrides the build-time path (tests built here, run on
    // another machine).
    static std::string exe = [] {
      const char* e = std::getenv("ATTNLAB_EXE");
      return std::string(e && *e ? e : ATTNLAB_EXE);
    }();
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  Ran r;
  if (WIFEXITED(status)) {
    r.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.code = 128 + WTERMSIG(status);
  }
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// stderr holds exactly one line and it starts with "attnlab: error: ".
inline bool one_error_line(const std::string& err) {
  return err.rfind("attnlab: error: ", 0) == 0 && !err.empty() && err.back() == '\n' &&
         err.find('\n') == err.size() - 1;
}

}  // namespace cli_test
