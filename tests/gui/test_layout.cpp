// Default window layout (app/layout.h) and diagram geometry (visuals/diagram.h).
#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include "app/cli/cli.h"
#include "app/layout.h"
#include "visuals/diagram.h"

TEST_CASE("the default layout fills the work area and the panels open at start never overlap",
          "[gui][layout]") {
  const unsigned seed = 7201;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> w(800, 3840), h(600, 2160);
  for (int trial = 0; trial < 500; ++trial) {
    const float dw = trial == 0 ? 1600 : w(rng), dh = trial == 0 ? 1000 : h(rng);
    const float top = 22, bottom = 26;
    CAPTURE(dw, dh);
    const auto r = app::default_layout(dw, dh, top, bottom);
    REQUIRE(r.size() == app::panel_names().size());
    for (size_t i = 0; i < r.size(); ++i) {
      CHECK(r[i].x >= 0);
      CHECK(r[i].y >= top);
      CHECK(r[i].x + r[i].w <= dw + 1e-3f);
      CHECK(r[i].y + r[i].h <= dh - bottom + 1e-3f);
      CHECK(r[i].w >= 200);
      CHECK(r[i].h >= 200);
    }
    // The five panels are open at first start and never overlap.
    for (size_t i = 0; i < 5; ++i)
      for (size_t j = i + 1; j < 5; ++j) CHECK_FALSE(r[i].overlaps(r[j]));
    // Together they cover nearly all of the work area (gaps only).
    double area = 0;
    for (size_t i = 0; i < 5; ++i) area += static_cast<double>(r[i].w) * r[i].h;
    CHECK(area > 0.97 * static_cast<double>(dw) * (dh - top - bottom));
  }
  const app::PanelRect f = app::focused_rect(1600, 1000, 22, 26);
  CHECK(f.y >= 22);
  CHECK(f.y + f.h <= 1000 - 26);
  CHECK(app::panel_index("kv-cache") == 1);
  CHECK(app::panel_index("nope") == -1);
}

TEST_CASE("arrows leave boxes on their border and heads are symmetric", "[gui][diagram]") {
  const unsigned seed = 7202;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-500, 500), s(10, 200);
  for (int i = 0; i < 1000; ++i) {
    const vis::Rect r{u(rng), u(rng), s(rng), s(rng)};
    const ImVec2 to(u(rng) * 3, u(rng) * 3);
    CAPTURE(r.x, r.y, r.w, r.h, to.x, to.y);
    const ImVec2 p = vis::rect_exit_point(r, to);
    const bool on_vertical =
        (std::fabs(p.x - r.x) < 1e-2f || std::fabs(p.x - (r.x + r.w)) < 1e-2f) &&
        p.y >= r.y - 1e-2f && p.y <= r.y + r.h + 1e-2f;
    const bool on_horizontal =
        (std::fabs(p.y - r.y) < 1e-2f || std::fabs(p.y - (r.y + r.h)) < 1e-2f) &&
        p.x >= r.x - 1e-2f && p.x <= r.x + r.w + 1e-2f;
    CHECK((on_vertical || on_horizontal));
    ImVec2 l, rr;
    const ImVec2 from(u(rng), u(rng));
    vis::arrow_head(from, to, 9, &l, &rr);
    const float dl = std::hypot(l.x - to.x, l.y - to.y), dr = std::hypot(rr.x - to.x, rr.y - to.y);
    CHECK(dl == Approx(dr).epsilon(1e-3));
  }
  CHECK(vis::fit_scale(ImVec2(600, 400), ImVec2(300, 0), 1.5f) == Approx(0.5f));
  CHECK(vis::fit_scale(ImVec2(600, 400), ImVec2(3000, 0), 1.5f) == Approx(1.5f));
  const vis::Rect a{0, 0, 10, 10}, b{5, 5, 10, 10}, c{10, 0, 5, 5};
  CHECK(a.overlaps(b));
  CHECK_FALSE(a.overlaps(c));
}
