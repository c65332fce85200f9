// Heatmaps of attention scores and probabilities ([rows = query positions, cols = key
// positions]) drawn with ImDrawList, masked cells hatched, and the colour legend beside them.
//
// [SECTION] Colour map (pure, tested)
// [SECTION] Drawing
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace vis {

// ---- [SECTION] Colour map ----------------------------------------------------------------

// A perceptually ordered dark-blue -> green -> yellow map (viridis-like, 5 control points,
// linear between them). t is clamped to [0, 1]; rgb in [0, 1].
void heat_rgb(double t, float rgb[3]);
ImU32 heat_color(double t);
// Position of v in [lo, hi] as t in [0, 1] (0.5 when lo == hi; non-finite v -> 0).
double heat_unit(double v, double lo, double hi);

// ---- [SECTION] Drawing --------------------------------------------------------------------

struct HeatmapSpec {
  int rows = 0;                           // T query positions
  int cols = 0;                           // S key positions
  const double* values = nullptr;         // [rows, cols], row-major
  const unsigned char* masked = nullptr;  // [rows, cols], 1 = masked out (hatched); or null
  double lo = 0, hi = 1;                  // colour range
  ImU32 frame = 0;                        // border colour (the kv head's), 0 = none
  const char* value_name = "value";       // tooltip: "score", "p"
  const char* row_name = "query";         // tooltip: what a row and a column are
  const char* col_name = "key";
  int row_offset = 0;  // query i is at position row_offset + i (tooltip)
  int max_cells = 64;  // cells shown per side at most (blocks are averaged)
};

// The cells draw_heatmap shows along a side of n values, at most max_cells: cell i is the mean
// of values [i * n / cells, (i + 1) * n / cells).
int heatmap_cells(int n, int max_cells);
// One item of `size` pixels (cells are size / (cols, rows)); a tooltip shows the cell under the
// mouse ("query 5, key 3: p = 0.12" or "masked"). Returns true when hovered.
bool draw_heatmap(const char* id, const HeatmapSpec& spec, ImVec2 size, bool tooltip = true);
// A vertical colour bar from lo (bottom) to hi (top) with three labels and, where `masked`, a
// hatched swatch for "masked". `format` formats the labels.
void draw_heat_legend(const char* id, double lo, double hi, const char* title,
                      std::string (*format)(double), ImVec2 size, bool masked = true);

}  // namespace vis
