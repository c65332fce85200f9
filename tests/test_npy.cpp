// NPY reader and writer: round trips, every format version and element type, header spellings
// numpy and other writers produce, and one case per class of malformed file (each an
// InputError naming the file). Fixtures are generated into a temporary folder.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/error.h"
#include "attention/npy.h"
#include "tests/reference_test_util.h"

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "attnlab-npy-XXXXXX").string();
    REQUIRE(::mkdtemp(&tmpl[0]) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(path)) n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }
};

void write_bytes(const std::string& path, const Bytes& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// An NPY file by hand: magic, version, header length, dict (+ spaces to a multiple of 64 when
// `align`) and '\n', then data.
Bytes make_npy(int major, const std::string& dict, const Bytes& data, bool align = true) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  if (align)
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(major), 0};
  const std::size_t len = header.size();
  out.push_back(static_cast<unsigned char>(len & 0xff));
  out.push_back(static_cast<unsigned char>((len >> 8) & 0xff));
  if (major != 1) {
    out.push_back(static_cast<unsigned char>((len >> 16) & 0xff));
    out.push_back(static_cast<unsigned char>((len >> 24) & 0xff));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <class T>
Bytes raw(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string dict_of(const std::string& descr, const std::string& shape,
                    const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

// The message of the InputError that reading `bytes` from a file raises ("" when none).
std::string read_error(const TempDir& dir, const std::string& name, const Bytes& bytes) {
  const std::string path = dir.file(name);
  write_bytes(path, bytes);
  try {
    (void)attn::read_npy(path);
  } catch (const attn::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("npy: write then read gives the same shape and bits", "[npy]") {
  const std::uint64_t seed = 301;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  TempDir dir;
  const std::vector<std::vector<std::int64_t>> shapes = {{},        {0},           {3},
                                                         {2, 3, 4}, {1, 54, 9, 3}, {4, 0, 2}};
  for (const auto& shape : shapes) {
    INFO("shape " << attn::shape_string(shape));
    attn::TensorF t(shape);
    t.data = reftest::random_floats(rng, t.data.size(), -1e6f, 1e6f);
    const std::string path = dir.file("t.npy");
    attn::write_npy(path, t);
    const attn::TensorF back = attn::read_npy_float(path);
    CHECK(back.shape == shape);
    CHECK(back.data == t.data);
    // numpy's layout: data starts at a multiple of 64, the header ends with a newline.
    const Bytes bytes = attn::npy_bytes(t);
    const std::size_t len = bytes[8] | (bytes[9] << 8);
    CHECK((10 + len) % 64 == 0);
    CHECK(bytes[10 + len - 1] == '\n');
    CHECK(bytes.size() == 10 + len + 4 * t.data.size());
  }
  std::vector<std::int64_t> ints = {0, -1, 5, std::int64_t(1) << 40, -(std::int64_t(1) << 62), 7};
  const Bytes b = attn::npy_bytes_i64({2, 3}, ints);
  const attn::NpyArray a = attn::parse_npy(b.data(), b.size(), "lens.npy", 1 << 20);
  CHECK(a.kind == attn::NpyKind::kI64);
  CHECK(a.shape == std::vector<std::int64_t>{2, 3});
  CHECK(attn::npy_to_int64(a, "lens.npy") == ints);
  CHECK(attn::shape_string({2, 54, 8, 128}) == "[2, 54, 8, 128]");
  CHECK(attn::shape_string({}) == "[]");
}

TEST_CASE("npy: format versions 1.0, 2.0 and 3.0 and every supported element type", "[npy]") {
  TempDir dir;
  const std::vector<float> f = {1.5f, -2.f, 3.25f, 0.f, -0.f, 1e-30f};
  for (int major : {1, 2, 3}) {
    INFO("version " << major << ".0");
    const std::string path = dir.file("v" + std::to_string(major) + ".npy");
    write_bytes(path, make_npy(major, dict_of("<f4", "(2, 3)"), raw(f)));
    const attn::TensorF t = attn::read_npy_float(path);
    CHECK(t.shape == std::vector<std::int64_t>{2, 3});
    CHECK(t.data == f);
  }
  // float16: 1, -2, 65504 (largest), 2^-24 (smallest subnormal), -0, inf.
  const std::vector<std::uint16_t> h = {0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00};
  write_bytes(dir.file("f2.npy"), make_npy(1, dict_of("<f2", "(6,)"), raw(h)));
  const attn::TensorF th = attn::read_npy_float(dir.file("f2.npy"));
  CHECK(th.data[0] == 1.f);
  CHECK(th.data[1] == -2.f);
  CHECK(th.data[2] == 65504.f);
  CHECK(th.data[3] == std::ldexp(1.f, -24));
  CHECK((th.data[4] == 0.f && std::signbit(th.data[4])));
  CHECK(std::isinf(th.data[5]));
  const std::vector<double> d = {0.1, -1e30, 12345.678};
  write_bytes(dir.file("f8.npy"), make_npy(2, dict_of("<f8", "(3,)"), raw(d)));
  const attn::TensorF td = attn::read_npy_float(dir.file("f8.npy"));
  for (std::size_t i = 0; i < d.size(); ++i) CHECK(td.data[i] == static_cast<float>(d[i]));
  const std::vector<std::int32_t> i4 = {0, 54, -3, 2147483647};
  write_bytes(dir.file("i4.npy"), make_npy(3, dict_of("<i4", "(4,)"), raw(i4)));
  const attn::NpyArray a = attn::read_npy(dir.file("i4.npy"));
  CHECK(attn::npy_to_int64(a, "i4.npy") == std::vector<std::int64_t>{0, 54, -3, 2147483647});
  // Integer arrays are not floats and the reverse, and the message names the dtype found.
  try {
    (void)attn::npy_to_float(a, "lens.npy");
    FAIL("no error");
  } catch (const attn::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("lens.npy") && Catch::Contains("int32"));
  }
  CHECK_THROWS_AS(attn::npy_to_int64(attn::read_npy(dir.file("f8.npy")), "x"), attn::InputError);
  // float64 beyond float32 range cannot become float32 silently.
  const std::vector<double> big = {1e300};
  write_bytes(dir.file("big.npy"), make_npy(1, dict_of("<f8", "(1,)"), raw(big)));
  CHECK_THROWS_AS(attn::read_npy_float(dir.file("big.npy")), attn::InputError);
}

TEST_CASE("npy: header spellings that numpy and other writers produce", "[npy]") {
  TempDir dir;
  const std::vector<float> six = {1, 2, 3, 4, 5, 6};
  struct Case {
    std::string dict;
    std::vector<std::int64_t> shape;
    bool align;
  };
  const std::vector<Case> cases = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", {6}, true},
      {"{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f4\"}", {2, 3}, true},
      {"{'descr':'<f4','fortran_order':False,'shape':( 2 , 3 , )}", {2, 3}, true},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", {2, 3}, true},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 6, 1), }", {1, 6, 1}, false},
      {"  {'descr': '<f4',\t'fortran_order': False, 'shape': (6,)}  ", {6}, false},
  };
  for (const Case& c : cases) {
    INFO(c.dict);
    write_bytes(dir.file("h.npy"), make_npy(1, c.dict, raw(six), c.align));
    const attn::TensorF t = attn::read_npy_float(dir.file("h.npy"));
    CHECK(t.shape == c.shape);
    CHECK(t.data == six);
  }
  // A 0-d array holds one element.
  write_bytes(dir.file("s.npy"), make_npy(1, dict_of("<f4", "()"), raw(std::vector<float>{7.f})));
  const attn::TensorF s = attn::read_npy_float(dir.file("s.npy"));
  CHECK(s.shape.empty());
  CHECK(s.data == std::vector<float>{7.f});
}

TEST_CASE("npy: every class of malformed file is an InputError naming the file", "[npy]") {
  TempDir dir;
  const Bytes four_floats = raw(std::vector<float>{1, 2, 3, 4});
  const Bytes good = make_npy(1, dict_of("<f4", "(4,)"), four_floats);
  struct Case {
    std::string what;
    Bytes bytes;
    std::string mentions;  // a word the message must contain
  };
  auto with_dict = [&](const std::string& dict) { return make_npy(1, dict, four_floats); };
  Bytes bad_magic = good;
  bad_magic[1] = 'X';
  Bytes version4 = good;
  version4[6] = 4;
  Bytes version11 = good;
  version11[7] = 1;
  Bytes long_header = good;
  long_header[9] = 0x40;  // header length 16384 + ..., beyond the file
  Bytes zero_header = good;
  zero_header[8] = zero_header[9] = 0;
  Bytes no_newline = good;
  no_newline[good.size() - four_floats.size() - 1] = ' ';
  Bytes truncated = good;
  truncated.resize(good.size() - 3);
  Bytes trailing = good;
  trailing.push_back(0);
  const std::vector<Case> cases = {
      {"empty file", {}, "NPY"},
      {"five bytes", {0x93, 'N', 'U', 'M', 'P'}, "NPY"},
      {"bad magic", bad_magic, "magic"},
      {"zip file", {'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "magic"},
      {"version 4.0", version4, "version"},
      {"version 1.1", version11, "version"},
      {"preamble cut", Bytes(good.begin(), good.begin() + 9), "truncated"},
      {"header length beyond the file", long_header, "truncated"},
      {"header length 0", zero_header, "header"},
      {"header not ended by a newline", no_newline, "newline"},
      {"not a dict", with_dict("['descr', '<f4']"), "dict"},
      {"missing key", with_dict("{'descr': '<f4', 'shape': (4,)}"), "fortran_order"},
      {"extra key", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}"),
       "'x'"},
      {"duplicate key",
       with_dict("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}"),
       "twice"},
      {"unterminated string", with_dict("{'descr': '<f4, 'fortran_order': False, 'shape': (4,)}"),
       "header"},
      {"unquoted dtype", with_dict("{'descr': <f4, 'fortran_order': False, 'shape': (4,)}"),
       "header"},
      {"unclosed dict", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)"),
       "header"},
      {"deep nesting",
       with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': " + std::string(40, '(') + "4" +
                 std::string(40, ')') + "}"),
       "nest"},
      {"unsigned dtype", with_dict(dict_of("<u4", "(4,)")), "'<u4'"},
      {"complex dtype", with_dict(dict_of("<c8", "(4,)")), "'<c8'"},
      {"string dtype", with_dict(dict_of("<U1", "(4,)")), "'<U1'"},
      {"big-endian float32", with_dict(dict_of(">f4", "(4,)")), "big-endian"},
      {"big-endian int64", make_npy(1, dict_of(">i8", "(2,)"), four_floats), "big-endian"},
      {"object dtype", with_dict(dict_of("|O", "(4,)")), "object"},
      {"structured dtype",
       with_dict("{'descr': [('a', '<f4'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,)}"),
       "structured"},
      {"fortran order", with_dict(dict_of("<f4", "(2, 2)", "True")), "fortran_order"},
      {"fortran order not a bool", with_dict(dict_of("<f4", "(4,)", "0")), "fortran_order"},
      {"shape an int", with_dict(dict_of("<f4", "(4)")), "tuple"},
      {"shape a list", with_dict(dict_of("<f4", "[4]")), "tuple"},
      {"shape of strings", with_dict(dict_of("<f4", "('4',)")), "tuple"},
      {"negative dimension", with_dict(dict_of("<f4", "(-4,)")), "non-negative"},
      {"fractional dimension", with_dict(dict_of("<f4", "(2.5,)")), "header"},
      {"shape bigger than the data", with_dict(dict_of("<f4", "(5,)")), "truncated"},
      {"shape smaller than the data", with_dict(dict_of("<f4", "(3,)")), "trailing"},
      {"truncated data", truncated, "truncated"},
      {"trailing bytes", trailing, "trailing"},
      {"dimension beyond int64", with_dict(dict_of("<f4", "(99999999999999999999,)")), "2^63"},
      {"product overflows", with_dict(dict_of("<f4", "(4611686018427387904, 4611686018427387904)")),
       "limit"},
      {"beyond the tensor limit", with_dict(dict_of("<f4", "(5000000000,)")), "limit"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const std::string name = "bad.npy";
    const std::string msg = read_error(dir, name, c.bytes);
    INFO("message: " << msg);
    REQUIRE(!msg.empty());
    CHECK_THAT(msg, Catch::StartsWith(dir.file(name) + ": "));
    CHECK_THAT(msg, Catch::Contains("expected"));
    CHECK_THAT(msg, Catch::Contains(c.mentions, Catch::CaseSensitive::No));
    // The same bytes in memory fail the same way, under the given name.
    try {
      (void)attn::parse_npy(c.bytes.data(), c.bytes.size(), "mem.npy",
                            attn::Limits::kMaxTensorBytes);
      FAIL("parse_npy accepted it");
    } catch (const attn::InputError& e) {
      CHECK_THAT(e.what(), Catch::StartsWith("mem.npy: "));
    }
  }
  // A limit given to parse_npy is checked before the size.
  try {
    (void)attn::parse_npy(good.data(), good.size(), "small.npy", 15);
    FAIL("no error");
  } catch (const attn::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("limit"));
  }
  CHECK_NOTHROW(attn::parse_npy(good.data(), good.size(), "small.npy", 16));
  // Files that are not there or not files.
  CHECK_THROWS_WITH(attn::read_npy(dir.file("missing.npy")),
                    Catch::StartsWith(dir.file("missing.npy")));
  CHECK_THROWS_WITH(attn::read_npy(dir.path.string()), Catch::Contains("directory"));
}

TEST_CASE("write_file_atomic: replaces the file whole, or leaves it as it was", "[npy][io]") {
  TempDir dir;
  const std::string path = dir.file("out.json");
  attn::write_file_atomic(path, "first");
  CHECK(read_text(path) == "first");
  attn::write_file_atomic(path, "second, longer");
  CHECK(read_text(path) == "second, longer");
  CHECK(dir.names() == std::vector<std::string>{"out.json"});

  // A directory in the way: error naming the path, nothing left behind.
  fs::create_directory(dir.path / "sub");
  CHECK_THROWS_WITH(attn::write_file_atomic(dir.file("sub"), "x"),
                    Catch::StartsWith(dir.file("sub") + ": "));
  CHECK(fs::is_directory(dir.path / "sub"));
  // A folder that does not exist.
  const std::string nowhere = dir.file("no/such/out.npy");
  CHECK_THROWS_WITH(attn::write_npy(nowhere, attn::TensorF({2})),
                    Catch::StartsWith(nowhere + ": "));

  // A write that fails half way (file size limit): the old file stays, the temporary goes.
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 100;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string error;
  try {
    attn::write_file_atomic(path, std::string(1000, 'z'));
  } catch (const attn::InputError& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  CHECK_THAT(error, Catch::StartsWith(path + ": "));
  CHECK(read_text(path) == "second, longer");
  CHECK(dir.names() == std::vector<std::string>{"out.json", "sub"});
}
