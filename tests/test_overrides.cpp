// kernels/overrides.h: every ATTNLAB_* kernel variable read with one rule (unset, empty or not a
// whole decimal integer counts as not set; the layout takes its names only), and the defaults of
// the two on-by-default switches.
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "kernels/bench_cpu.h"
#include "kernels/overrides.h"
#include "scoped_env.h"

using test_env::ScopedEnv;

TEST_CASE("overrides: integers parse whole, anything else is not set", "[overrides]") {
  // {value, read_overrides' field (0 = not set), env_int with the default 7}
  const struct {
    const char* value;
    int field;
    int with_default;
  } cases[] = {{nullptr, 0, 7}, {"", 0, 7},     {"4", 4, 4},          {"-3", -3, -3},
               {"0", 0, 0},     {"16", 16, 16}, {"4x", 0, 7},         {" 4", 0, 7},
               {"abc", 0, 7},   {"2.5", 0, 7},  {"99999999999", 0, 7}};
  for (const auto& c : cases) {
    CAPTURE(c.value ? c.value : "(unset)");
    ScopedEnv e("ATTNLAB_GROUPED_SPLITS", c.value);
    CHECK(kern::read_overrides().grouped_splits == c.field);
    CHECK(kern::env_int("ATTNLAB_GROUPED_SPLITS", 7) == c.with_default);
  }
}

TEST_CASE("overrides: every variable reaches its field", "[overrides]") {
  ScopedEnv v("ATTNLAB_GROUPED_VERSION", "3"), s("ATTNLAB_GROUPED_STAGES", "6"),
      l("ATTNLAB_GROUPED_LAYOUT", "mt2"), k("ATTNLAB_GROUPED_KEYS", "32"),
      w("ATTNLAB_GROUPED_WGS", "2"), c("ATTNLAB_GROUPED_COMBINE", "1"),
      p("ATTNLAB_GROUPED_PROBE", "2"), t("ATTNLAB_GROUPED_TICKET", "0"),
      m("ATTNLAB_MLA_PROBE", "4"), d("ATTNLAB_PDL", "0"), ps("ATTNLAB_MLA_PACKED_STAGES", "1"),
      mv("ATTNLAB_MLA_VERSION", "4"), cp("ATTNLAB_CPU_PROBE_MIB", "48");
  const kern::Overrides o = kern::read_overrides();
  CHECK(o.grouped_version == 3);
  CHECK(o.grouped_stages == 6);
  CHECK(o.grouped_layout == "mt2");
  CHECK(o.grouped_keys == 32);
  CHECK(o.grouped_wgs == 2);
  CHECK(o.grouped_combine == 1);
  CHECK(o.grouped_probe == 2);
  CHECK_FALSE(o.grouped_ticket);
  CHECK(o.mla_probe == 4);
  CHECK(o.mla_packed_stages == 1);
  CHECK(o.mla_version == 4);
  CHECK_FALSE(o.pdl);
  CHECK(o.cpu_probe_mib == 48);
}

TEST_CASE("overrides: the CPU probe's buffer: the request, ATTNLAB_CPU_PROBE_MIB, or automatic",
          "[overrides][bench]") {
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  // Past the CPU benchmark's budget (at most 4 GiB) the variable is not set either.
  for (const char* value : {static_cast<const char*>(nullptr), "", "0", "-4", "4097", "32x"}) {
    CAPTURE(value ? value : "(unset)");
    ScopedEnv p("ATTNLAB_CPU_PROBE_MIB", value);
    const std::size_t automatic = kern::cpu_probe_bytes(0);
    CHECK(automatic >= 256 * kMiB);
    CHECK(automatic <= 1024 * kMiB);
    CHECK(kern::cpu_probe_bytes(3 * kMiB) == 3 * kMiB);
  }
  for (int mib : {1, 32, 64}) {
    CAPTURE(mib);
    ScopedEnv p("ATTNLAB_CPU_PROBE_MIB", std::to_string(mib).c_str());
    CHECK(kern::cpu_probe_bytes(0) == static_cast<std::size_t>(mib) * kMiB);
    CHECK(kern::cpu_probe_bytes(5) == 5);  // an explicit request still wins
  }
}

TEST_CASE("overrides: switches are on unless set to 0; layouts only by name", "[overrides]") {
  for (const char* value : {static_cast<const char*>(nullptr), "", "1", "yes", "2"}) {
    CAPTURE(value ? value : "(unset)");
    ScopedEnv d("ATTNLAB_PDL", value), t("ATTNLAB_GROUPED_TICKET", value);
    const kern::Overrides o = kern::read_overrides();
    CHECK(o.pdl);
    CHECK(o.grouped_ticket);
  }
  for (const char* value : {"wt2", "mt2", "1"}) {
    ScopedEnv l("ATTNLAB_GROUPED_LAYOUT", value);
    CHECK(kern::read_overrides().grouped_layout == value);
  }
  for (const char* value : {"", "WT2", "mt3", "2"}) {
    ScopedEnv l("ATTNLAB_GROUPED_LAYOUT", value);
    CHECK(kern::read_overrides().grouped_layout.empty());
  }
}
