// NPY reader and writer (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
//
// [SECTION] Python-literal parser for the header dict
// [SECTION] Preamble and header checks (shared by parse_npy and read_npy)
// [SECTION] Reading and conversion
// (Writing: npy_write.cpp.)
//
// A file is: magic "\x93NUMPY", major, minor, header length (uint16 LE for 1.0, uint32 LE for
// 2.0 and 3.0), the header (a Python dict literal padded with spaces and ended by '\n'), then the
// raw data. Everything the header claims is checked against the file size before a byte of data
// is allocated: a header that lies about the shape can never make the reader allocate more than
// the file holds, nor more than Limits::kMaxTensorBytes.
#include "attention/npy.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "attention/config.h"
#include "attention/error.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "attnlab's NPY code assumes a little-endian host"
#endif

namespace attn {
namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMaxHeaderBytes = 1 << 20;  // numpy itself refuses more than 10000
constexpr int kMaxRank = 64;                      // numpy's NPY_MAXDIMS
constexpr int kMaxNesting = 16;

// ---------------------------------------------------------------------------------------------
// [SECTION] Python-literal parser for the header dict
// ---------------------------------------------------------------------------------------------

struct PyValue {
  enum Type { kStr, kInt, kBool, kNone, kTuple, kList, kDict } type = kNone;
  std::string str;             // kStr
  std::int64_t integer = 0;    // kInt
  bool int_overflow = false;   // kInt that does not fit int64
  bool boolean = false;        // kBool
  std::vector<PyValue> items;  // kTuple, kList, kDict (key, value, key, value, ...)
  std::string text;            // the source text, for messages
};

class LiteralParser {
 public:
  LiteralParser(const std::string& src, const std::string& origin) : src_(src), origin_(origin) {}

  PyValue parse_top() {
    skip_space();
    PyValue v = parse_value(0);
    skip_space();
    if (pos_ != src_.size()) fail("the end of the header dict", excerpt());
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& expected, const std::string& found) const {
    throw InputError(origin_ + ": header: expected " + expected + ", found " + found +
                     " at offset " + std::to_string(pos_) + " of the header");
  }
  std::string excerpt() const {
    if (pos_ >= src_.size()) return "the end of the header";
    std::string e = src_.substr(pos_, 16);
    for (char& c : e)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
    return "'" + e + "'";
  }
  void skip_space() {
    while (pos_ < src_.size() &&
           (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\n' || src_[pos_] == '\r'))
      ++pos_;
  }
  bool peek(char c) const { return pos_ < src_.size() && src_[pos_] == c; }

  PyValue parse_value(int depth) {
    if (depth > kMaxNesting)
      fail("at most " + std::to_string(kMaxNesting) + " nested brackets", "deeper nesting");
    if (pos_ >= src_.size()) fail("a value", "the end of the header");
    const std::size_t start = pos_;
    PyValue v;
    const char c = src_[pos_];
    if (c == '\'' || c == '"') {
      v = parse_string();
    } else if (c == '(' || c == '[' || c == '{') {
      v = parse_sequence(depth);
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      v = parse_int();
    } else if (src_.compare(pos_, 4, "True") == 0) {
      v.type = PyValue::kBool, v.boolean = true, pos_ += 4;
    } else if (src_.compare(pos_, 5, "False") == 0) {
      v.type = PyValue::kBool, v.boolean = false, pos_ += 5;
    } else if (src_.compare(pos_, 4, "None") == 0) {
      v.type = PyValue::kNone, pos_ += 4;
    } else {
      fail("a Python literal (string, integer, True, False, tuple)", excerpt());
    }
    v.text = src_.substr(start, pos_ - start);
    return v;
  }

  PyValue parse_string() {
    PyValue v;
    v.type = PyValue::kStr;
    const char quote = src_[pos_++];
    while (true) {
      if (pos_ >= src_.size()) fail("a closing quote", "the end of the header");
      char c = src_[pos_++];
      if (c == quote) break;
      if (c == '\n') fail("a closing quote", "a line break inside a string");
      if (c == '\\') {
        if (pos_ >= src_.size()) fail("an escaped character", "the end of the header");
        c = src_[pos_++];
      }
      v.str += c;
    }
    return v;
  }

  PyValue parse_int() {
    PyValue v;
    v.type = PyValue::kInt;
    bool negative = false;
    if (src_[pos_] == '-' || src_[pos_] == '+') negative = src_[pos_++] == '-';
    if (pos_ >= src_.size() || src_[pos_] < '0' || src_[pos_] > '9') fail("digits", excerpt());
    std::uint64_t value = 0;
    while (pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '9') {
      const auto digit = static_cast<std::uint64_t>(src_[pos_++] - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) v.int_overflow = true;
      value = value * 10 + digit;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'L' || src_[pos_] == 'l')) ++pos_;  // Python 2 long
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      v.int_overflow = true;
    if (!v.int_overflow) {
      v.integer = static_cast<std::int64_t>(value);
      if (negative) v.integer = -v.integer;
    }
    return v;
  }

  // (a, b, ...) tuples, [a, b] lists and {k: v, ...} dicts, trailing commas allowed. "(x)" is
  // a parenthesised x, not a tuple, as in Python.
  PyValue parse_sequence(int depth) {
    const char open = src_[pos_++];
    const char close = open == '(' ? ')' : open == '[' ? ']' : '}';
    PyValue v;
    v.type = open == '(' ? PyValue::kTuple : open == '[' ? PyValue::kList : PyValue::kDict;
    bool saw_comma = false;
    skip_space();
    while (!peek(close)) {
      if (!v.items.empty() && !saw_comma) fail(std::string("',' or '") + close + "'", excerpt());
      v.items.push_back(parse_value(depth + 1));
      skip_space();
      if (v.type == PyValue::kDict) {
        if (!peek(':')) fail("':' after a dict key", excerpt());
        ++pos_;
        skip_space();
        v.items.push_back(parse_value(depth + 1));
        skip_space();
      }
      saw_comma = peek(',');
      if (saw_comma) {
        ++pos_;
        skip_space();
      }
    }
    ++pos_;
    if (v.type == PyValue::kTuple && v.items.size() == 1 && !saw_comma) {
      PyValue inner = v.items[0];
      return inner;
    }
    return v;
  }

  const std::string& src_;
  const std::string& origin_;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Preamble and header checks
// ---------------------------------------------------------------------------------------------

std::size_t item_size(NpyKind k) {
  switch (k) {
    case NpyKind::kF16:
      return 2;
    case NpyKind::kF32:
      return 4;
    case NpyKind::kF64:
      return 8;
    case NpyKind::kI32:
      return 4;
    case NpyKind::kI64:
      return 8;
  }
  return 0;
}

const char* kind_descr(NpyKind k) {
  switch (k) {
    case NpyKind::kF16:
      return "'<f2' (float16)";
    case NpyKind::kF32:
      return "'<f4' (float32)";
    case NpyKind::kF64:
      return "'<f8' (float64)";
    case NpyKind::kI32:
      return "'<i4' (int32)";
    case NpyKind::kI64:
      return "'<i8' (int64)";
  }
  return "?";
}

struct Preamble {
  int major = 0, minor = 0;
  std::size_t header_start = 0;  // offset of the dict text
  std::size_t header_len = 0;
};

struct Header {
  NpyKind kind = NpyKind::kF32;
  std::vector<std::int64_t> shape;
  std::uint64_t data_offset = 0;
  std::uint64_t data_bytes = 0;
};

std::string hex_bytes(const unsigned char* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += ' ';
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

// p holds the first `avail` bytes of a file of file_size bytes.
Preamble parse_preamble(const unsigned char* p, std::size_t avail, std::uint64_t file_size,
                        const std::string& origin) {
  const std::string magic_text = "an NPY file (magic \\x93NUMPY)";
  if (avail < 8)
    throw InputError(origin + ": expected " + magic_text + ", found a file of only " +
                     std::to_string(file_size) + " bytes");
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0)
    throw InputError(origin + ": expected " + magic_text + ", found the bytes " + hex_bytes(p, 6));
  Preamble pre;
  pre.major = p[6];
  pre.minor = p[7];
  if (pre.minor != 0 || pre.major < 1 || pre.major > 3)
    throw InputError(origin + ": expected NPY format version 1.0, 2.0 or 3.0, found " +
                     std::to_string(pre.major) + "." + std::to_string(pre.minor));
  const std::size_t len_bytes = pre.major == 1 ? 2 : 4;
  pre.header_start = 8 + len_bytes;
  if (avail < pre.header_start)
    throw InputError(origin + ": expected a " + std::to_string(pre.header_start) +
                     "-byte preamble, found a file of only " + std::to_string(file_size) +
                     " bytes (truncated header)");
  std::uint64_t len = 0;
  for (std::size_t i = 0; i < len_bytes; ++i) len |= std::uint64_t(p[8 + i]) << (8 * i);
  if (len == 0 || len > kMaxHeaderBytes)
    throw InputError(origin + ": expected a header length of 1.." +
                     std::to_string(kMaxHeaderBytes) + " bytes, found " + std::to_string(len));
  pre.header_len = static_cast<std::size_t>(len);
  if (file_size < pre.header_start + len)
    throw InputError(origin + ": expected a header of " + std::to_string(len) +
                     " bytes, found only " + std::to_string(file_size - pre.header_start) +
                     " bytes after the preamble (truncated header)");
  return pre;
}

NpyKind parse_descr(const PyValue& d, const std::string& origin) {
  const std::string expected =
      "one of '<f2', '<f4', '<f8', '<i4', '<i8' (little-endian float16/32/64, int32/64)";
  if (d.type == PyValue::kList || d.type == PyValue::kDict)
    throw InputError(origin + ": header 'descr': expected " + expected +
                     ", found a structured dtype " + d.text);
  if (d.type != PyValue::kStr)
    throw InputError(origin + ": header 'descr': expected " + expected + ", found " + d.text);
  const std::string& s = d.str;
  if (s == "<f2") return NpyKind::kF16;
  if (s == "<f4") return NpyKind::kF32;
  if (s == "<f8") return NpyKind::kF64;
  if (s == "<i4") return NpyKind::kI32;
  if (s == "<i8") return NpyKind::kI64;
  std::string why;
  if (!s.empty() && s[0] == '>')
    why = " (big-endian: save it as little-endian, arr.astype('<" + s.substr(1) + "'))";
  else if (s.find('O') != std::string::npos)
    why = " (Python objects)";
  else if (!s.empty() && s[0] == '|')
    why = " (no byte order: not a supported type)";
  else
    why = " (unsupported element type)";
  throw InputError(origin + ": header 'descr': expected " + expected + ", found '" + s + "'" + why);
}

std::string shape_text(const std::vector<std::int64_t>& shape) { return shape_string(shape); }

// "17179869184 bytes (16 GiB)"
std::string bytes_text(std::uint64_t n) {
  std::string s = std::to_string(n) + " bytes";
  if (n >= (1u << 30) && n % (1u << 30) == 0) s += " (" + std::to_string(n >> 30) + " GiB)";
  return s;
}

// Parses and checks the header dict; the data must be exactly file_size - data_offset bytes.
Header parse_header_dict(const std::string& text, const Preamble& pre, std::uint64_t file_size,
                         std::int64_t max_bytes, const std::string& origin) {
  if (text.empty() || text.back() != '\n')
    throw InputError(origin +
                     ": header: expected a dict padded with spaces and ended by a "
                     "newline, found no newline at the end of the " +
                     std::to_string(text.size()) + "-byte header");
  const PyValue dict = LiteralParser(text, origin).parse_top();
  if (dict.type != PyValue::kDict)
    throw InputError(origin +
                     ": header: expected a dict {'descr': ..., 'fortran_order': ..., "
                     "'shape': ...}, found " +
                     dict.text.substr(0, 40));
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const PyValue& key = dict.items[i];
    const PyValue* value = &dict.items[i + 1];
    const PyValue** slot = nullptr;
    if (key.type == PyValue::kStr) {
      if (key.str == "descr") slot = &descr;
      if (key.str == "fortran_order") slot = &fortran;
      if (key.str == "shape") slot = &shape;
    }
    if (!slot)
      throw InputError(origin +
                       ": header: expected only the keys 'descr', 'fortran_order' and "
                       "'shape', found the key " +
                       key.text);
    if (*slot)
      throw InputError(origin + ": header: expected each key once, found " + key.text + " twice");
    *slot = value;
  }
  const char* missing = !descr     ? "'descr'"
                        : !fortran ? "'fortran_order'"
                        : !shape   ? "'shape'"
                                   : nullptr;
  if (missing)
    throw InputError(origin +
                     ": header: expected the keys 'descr', 'fortran_order' and "
                     "'shape', found no " +
                     missing);

  Header h;
  h.kind = parse_descr(*descr, origin);
  if (fortran->type != PyValue::kBool)
    throw InputError(origin + ": header 'fortran_order': expected False, found " + fortran->text);
  if (fortran->boolean)
    throw InputError(origin +
                     ": header 'fortran_order': expected False (C order), found True "
                     "(save np.ascontiguousarray(arr) instead)");

  const std::string shape_expected = "a tuple of non-negative integers such as (2, 54, 8, 128)";
  if (shape->type != PyValue::kTuple)
    throw InputError(origin + ": header 'shape': expected " + shape_expected + ", found " +
                     shape->text);
  if (shape->items.size() > static_cast<std::size_t>(kMaxRank))
    throw InputError(origin + ": header 'shape': expected at most " + std::to_string(kMaxRank) +
                     " dimensions, found " + std::to_string(shape->items.size()));
  const std::uint64_t item = item_size(h.kind);
  const auto limit = static_cast<std::uint64_t>(max_bytes < 0 ? 0 : max_bytes);
  std::uint64_t bytes = item;
  bool over = false;  // the product passed the limit (and so can no longer overflow unnoticed)
  for (const PyValue& d : shape->items) {
    if (d.type != PyValue::kInt)
      throw InputError(origin + ": header 'shape': expected " + shape_expected + ", found " +
                       shape->text);
    if (d.int_overflow)
      throw InputError(origin + ": header 'shape': expected dimensions below 2^63, found " +
                       d.text);
    if (d.integer < 0)
      throw InputError(origin + ": header 'shape': expected non-negative dimensions, found " +
                       d.text);
    h.shape.push_back(d.integer);
    const auto dim = static_cast<std::uint64_t>(d.integer);
    if (dim == 0) {
      bytes = 0;
      over = false;
    } else if (!over && bytes != 0) {  // a zero dimension keeps the array empty
      if (bytes > limit / dim)
        over = true;
      else
        bytes *= dim;
    }
  }
  if (over || bytes > limit)
    throw InputError(origin + ": expected at most " + bytes_text(limit) +
                     " of data (the tensor size limit), found a shape " + shape_text(h.shape) +
                     " of " + kind_descr(h.kind) + " that needs more");
  h.data_bytes = bytes;
  h.data_offset = pre.header_start + pre.header_len;
  const std::uint64_t have = file_size - h.data_offset;
  if (have != bytes)
    throw InputError(origin + ": expected " + std::to_string(bytes) + " data bytes for shape " +
                     shape_text(h.shape) + " of " + kind_descr(h.kind) + ", found " +
                     std::to_string(have) +
                     (have < bytes ? " (truncated file)" : " (trailing bytes after the data)"));
  return h;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Reading and conversion
// ---------------------------------------------------------------------------------------------

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

NpyArray parse_npy(const unsigned char* data, std::size_t size, const std::string& origin,
                   std::int64_t max_bytes) {
  const Preamble pre = parse_preamble(data, size, size, origin);
  const std::string text(reinterpret_cast<const char*>(data) + pre.header_start, pre.header_len);
  const Header h = parse_header_dict(text, pre, size, max_bytes, origin);
  NpyArray a;
  a.kind = h.kind;
  a.shape = h.shape;
  a.bytes.assign(data + h.data_offset, data + h.data_offset + h.data_bytes);
  return a;
}

NpyArray read_npy(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path + ": cannot open: " + errno_text());
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": expected a regular .npy file, found " +
                     (S_ISDIR(st.st_mode) ? "a directory" : "something else"));
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t max_file = std::uint64_t(Limits::kMaxTensorBytes) + 12 + kMaxHeaderBytes;
  if (file_size > max_file)
    throw InputError(path + ": expected at most " +
                     bytes_text(static_cast<std::uint64_t>(Limits::kMaxTensorBytes)) +
                     " of data (the tensor size limit), found a file of " +
                     std::to_string(file_size) + " bytes");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open: " + errno_text());
  struct Closer {
    std::FILE* file;
    ~Closer() { std::fclose(file); }
  } closer{f};
  auto read_exact = [&](void* dst, std::size_t n, const char* what) {
    if (n && std::fread(dst, 1, n, f) != n)
      throw InputError(path + ": cannot read the " + what + ": " +
                       (std::ferror(f) ? errno_text() : "file shrank while reading"));
  };
  unsigned char head[12] = {};
  const std::size_t first = static_cast<std::size_t>(std::min<std::uint64_t>(file_size, 12));
  read_exact(head, first, "preamble");
  const Preamble pre = parse_preamble(head, first, file_size, path);
  std::string text(pre.header_len, '\0');
  // The preamble read may have taken the first bytes of the header (version 1.0: 2 bytes).
  const std::size_t already = first - pre.header_start;
  const std::size_t from_head = std::min(already, pre.header_len);
  std::memcpy(&text[0], head + pre.header_start, from_head);
  read_exact(&text[from_head], pre.header_len - from_head, "header");
  const Header h = parse_header_dict(text, pre, file_size, Limits::kMaxTensorBytes, path);
  NpyArray a;
  a.kind = h.kind;
  a.shape = h.shape;
  a.bytes.resize(static_cast<std::size_t>(h.data_bytes));
  const std::size_t consumed = pre.header_start + from_head;  // bytes of the file read so far
  const std::size_t extra = first - consumed;  // data bytes already in head (empty headers)
  const std::size_t from_preamble = std::min<std::size_t>(extra, a.bytes.size());
  if (from_preamble) std::memcpy(a.bytes.data(), head + consumed, from_preamble);
  if (a.bytes.size() > extra) read_exact(a.bytes.data() + extra, a.bytes.size() - extra, "data");
  return a;
}

TensorF npy_to_float(const NpyArray& a, const std::string& origin) {
  if (a.kind == NpyKind::kI32 || a.kind == NpyKind::kI64)
    throw InputError(origin + ": expected a float array ('<f2', '<f4' or '<f8'), found " +
                     kind_descr(a.kind));
  TensorF t(a.shape);
  const std::size_t n = t.data.size();
  if (a.bytes.size() != n * item_size(a.kind))
    throw InputError(origin + ": expected " + std::to_string(n * item_size(a.kind)) +
                     " data bytes for shape " + shape_string(a.shape) + ", found " +
                     std::to_string(a.bytes.size()));
  const unsigned char* p = a.bytes.data();
  if (a.kind == NpyKind::kF32) {
    if (n) std::memcpy(t.data.data(), p, n * 4);
  } else if (a.kind == NpyKind::kF16) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      t.data[i] = half_to_float(h);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, p + 8 * i, 8);
      const auto f = static_cast<float>(d);
      if (std::isfinite(d) && !std::isfinite(f))
        throw InputError(origin + ": expected float64 values within float32 range, found " +
                         std::to_string(d) + " at flat index " + std::to_string(i));
      t.data[i] = f;
    }
  }
  return t;
}

TensorF read_npy_float(const std::string& path) { return npy_to_float(read_npy(path), path); }

std::vector<std::int64_t> npy_to_int64(const NpyArray& a, const std::string& origin) {
  if (a.kind != NpyKind::kI32 && a.kind != NpyKind::kI64)
    throw InputError(origin + ": expected an integer array ('<i4' or '<i8'), found " +
                     kind_descr(a.kind));
  const std::size_t item = item_size(a.kind);
  const std::size_t n = a.bytes.size() / item;
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (a.kind == NpyKind::kI32) {
      std::int32_t v;
      std::memcpy(&v, a.bytes.data() + 4 * i, 4);
      out[i] = v;
    } else {
      std::memcpy(&out[i], a.bytes.data() + 8 * i, 8);
    }
  }
  return out;
}

}  // namespace attn
