// NPY writer (version 1.0, '<f4' and '<i8', numpy's header layout) and the atomic file writer
// every output of attnlab goes through: a temporary file in the same folder, fsync, rename.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "attention/error.h"
#include "attention/npy.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "attnlab's NPY code assumes a little-endian host"
#endif

namespace attn {

namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

std::string errno_text() { return std::strerror(errno); }

std::vector<unsigned char> npy_with_header(const std::vector<std::int64_t>& shape,
                                           const char* descr, const void* data, std::size_t bytes) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) dict += ", ";
    dict += std::to_string(shape[i]);
  }
  if (shape.size() == 1) dict += ",";
  dict += "), }";
  // Pad with spaces so that data starts at a multiple of 64 bytes, as numpy does.
  std::size_t total = 10 + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  if (dict.size() > 0xffff)
    throw InputError("npy: expected a header below 64 KiB for NPY 1.0, found " +
                     std::to_string(dict.size()) + " bytes");
  std::vector<unsigned char> out;
  out.reserve(10 + dict.size() + bytes);
  out.insert(out.end(), kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<unsigned char>(dict.size() & 0xff));
  out.push_back(static_cast<unsigned char>(dict.size() >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  const auto* p = static_cast<const unsigned char*>(data);
  if (bytes) out.insert(out.end(), p, p + bytes);
  return out;
}

void check_numel(const std::vector<std::int64_t>& shape, std::size_t n, const char* what) {
  std::size_t want = 1;
  for (std::int64_t d : shape) {
    if (d < 0)
      throw InputError(std::string(what) + ": negative dimension in " + shape_string(shape));
    want *= static_cast<std::size_t>(d);
  }
  if (want != n)
    throw InputError(std::string(what) + ": expected " + std::to_string(want) +
                     " elements for shape " + shape_string(shape) + ", found " + std::to_string(n));
}

void write_all_atomic(const std::string& path, const unsigned char* data, std::size_t size) {
  // The pid keeps processes apart, the counter threads of one process (the explorer's jobs).
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  int mode = 0666;  // reduced by the umask, like any new file
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw InputError(path + ": cannot write: expected a file name, found a directory");
    mode = static_cast<int>(st.st_mode & 07777);
  }
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw InputError(path + ": cannot write: " + errno_text());
  auto fail = [&](const std::string& what) {
    const std::string why = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot write (" + what + "): " + why);
  };
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, std::min<std::size_t>(size - done, 1u << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot write (close): " + why);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot write (rename): " + why);
  }
  // Make the rename itself durable (best effort: not every filesystem allows it).
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

std::vector<unsigned char> npy_bytes(const TensorF& t) {
  check_numel(t.shape, t.data.size(), "npy");
  return npy_with_header(t.shape, "<f4", t.data.data(), t.data.size() * sizeof(float));
}

std::vector<unsigned char> npy_bytes_i64(const std::vector<std::int64_t>& shape,
                                         const std::vector<std::int64_t>& data) {
  check_numel(shape, data.size(), "npy");
  return npy_with_header(shape, "<i8", data.data(), data.size() * sizeof(std::int64_t));
}

void write_npy(const std::string& path, const TensorF& t) {
  const std::vector<unsigned char> bytes = npy_bytes(t);
  write_all_atomic(path, bytes.data(), bytes.size());
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  write_all_atomic(path, reinterpret_cast<const unsigned char*>(contents.data()), contents.size());
}

}  // namespace attn
