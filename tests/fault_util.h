// Helpers of the fault tests: run the real attnlab binary with a time limit and collect what it
// did (exit code or signal, stdout, stderr, peak memory), temporary folders, and raw files
// (hand-built NPY headers) for malformed inputs.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fault {

namespace fs = std::filesystem;

struct ProcResult {
  int exit_code = -1;     // valid when !signaled && !timed_out
  bool signaled = false;  // killed by a signal (a crash, or our kill on time-out)
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
  long max_rss_kib = 0;  // peak resident set of the child (getrusage ru_maxrss)
  double seconds = 0;

  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  std::string describe() const {
    std::ostringstream o;
    if (timed_out)
      o << "timed out";
    else if (signaled)
      o << "killed by signal " << signal;
    else
      o << "exit " << exit_code;
    o << " after " << seconds << " s, peak RSS " << max_rss_kib << " KiB\nstdout: " << out
      << "\nstderr: " << err;
    return o.str();
  }
};

inline std::string slurp_fd(int fd) {
  std::string s;
  char buf[4096];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
    s.append(buf, static_cast<std::size_t>(n));
  return s;
}

// Runs argv (argv[0] a path) with stdout and stderr captured; kills it after timeout_s.
// `in_child` runs in the child before exec (limits, signal dispositions).
inline ProcResult run_process(const std::vector<std::string>& argv, double timeout_s = 30,
                              const std::function<void()>& in_child = {},
                              const std::string& cwd = {}) {
  ProcResult r;
  char out_name[] = "/tmp/attnlab-fault-out-XXXXXX";
  char err_name[] = "/tmp/attnlab-fault-err-XXXXXX";
  const int out_fd = ::mkstemp(out_name);
  const int err_fd = ::mkstemp(err_name);
  ::unlink(out_name);
  ::unlink(err_name);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    if (in_child) in_child();
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage ru {};
  for (;;) {
    const pid_t w = ::wait4(pid, &status, WNOHANG, &ru);
    if (w == pid) break;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (el > timeout_s && !r.timed_out) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.max_rss_kib = ru.ru_maxrss;
  if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  }
  r.out = slurp_fd(out_fd);
  r.err = slurp_fd(err_fd);
  ::close(out_fd);
  ::close(err_fd);
  return r;
}

#ifdef ATTNLAB_EXE
inline std::vector<std::string> attnlab_argv(std::vector<std::string> args) {
  args.insert(args.begin(), ATTNLAB_EXE);
  return args;
}
#endif

// A fresh folder under the system temp dir, removed (made writable first) on destruction.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "attnlab-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(path, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      ::chmod(it->path().c_str(), 0700);
    ::chmod(path.c_str(), 0700);
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}
inline void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  write_bytes(path, std::string(bytes.begin(), bytes.end()));
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

inline std::set<std::string> dir_entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// A hand-built NPY file: header dict text, format version `major`, then the payload bytes.
// The header is padded with spaces and a newline to a multiple of 64 bytes, as numpy does.
inline std::string npy_raw(int major, const std::string& dict, const std::string& payload,
                           bool pad = true) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string h = dict;
  if (pad) {
    while ((prefix + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
  }
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const auto n = static_cast<std::uint32_t>(h.size());
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + h + payload;
}

inline std::string npy_dict(const std::string& descr, const std::string& shape,
                            const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

}  // namespace fault
