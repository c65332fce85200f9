// Drawing for the Learn and Compare views: one colour per concept, easing, and the few shapes
// every chapter builds its picture from (labelled blocks, arrows that grow, text at a given font,
// the KV-cache tape). Everything draws into an ImDrawList in screen coordinates; the geometry
// helpers (ease, mix, tape_width) are pure and tested.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace vis {

// ---- Colours: one per concept, the same in every chapter ---------------------------------
enum class Concept { kQuery, kKey, kValue, kLatent, kRope, kWindow, kBytes, kCompute, kInk };
ImU32 concept_color(Concept c, float alpha = 1.0f);
const char* concept_name(Concept c);  // "query", "key", ... (for legends)
ImU32 with_alpha(ImU32 col, float alpha);

// ---- Animation ---------------------------------------------------------------------------
// Cubic ease in-out of t clamped to [0, 1].
float ease(float t);
// The part of a beat's progress t that falls in [from, to], eased and rescaled to [0, 1]
// (so several moves of one beat run one after another).
float phase(float t, float from, float to);
float mix(float a, float b, float t);
ImVec2 mix(ImVec2 a, ImVec2 b, float t);

// ---- Shapes ------------------------------------------------------------------------------
enum class Align { kLeft, kCenter, kRight };
// Text at `font` (nullptr: the current one) anchored at `p` (top edge), aligned horizontally.
void text_at(ImDrawList* dl, ImFont* font, ImVec2 p, ImU32 col, const std::string& s,
             Align align = Align::kLeft);
ImVec2 text_size(ImFont* font, const std::string& s);
// A filled rectangle with a border, at `alpha` (0 draws nothing).
void block(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float alpha = 1.0f);
// An arrow from a to b drawn up to fraction `grow` of its length (0 nothing, 1 whole, head on).
void arrow(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float grow = 1.0f,
           float thickness = 2.0f);
// A matrix drawn as the rectangle it is: rows x cols scaled by px per element (clamped to a
// visible minimum), its name inside or above, its shape below.
void matrix(ImDrawList* dl, ImFont* font, ImVec2 at, float w, float h, ImU32 col,
            const std::string& name, const std::string& shape, float alpha = 1.0f);

// A column of n heads (one small bar each, colours[i], or the concept's colour when colours is
// empty) inside [at, at + (w, h)], with `label` above it. Returns the centre of head i's bar
// through *centres when given.
void head_stack(ImDrawList* dl, ImFont* font, ImVec2 at, float w, float h, int n, Concept c,
                const std::vector<ImU32>& colours, const std::string& label, float alpha = 1.0f,
                std::vector<ImVec2>* centres = nullptr);

// ---- The KV-cache tape -------------------------------------------------------------------
// Rows are tokens (the newest at the bottom), columns what the cache keeps per token: one K and
// one V column per kv head, or MLA's latent and RoPE columns. Widths are to scale (px per
// element); a few rows are drawn as ruled lines, the rest is the tape's length.
struct TapeColumn {
  float elements = 0;  // width in elements per token (D, Dl, Dr)
  Concept concept = Concept::kKey;
  ImU32 group_color = 0;  // non-zero: a band on top in the colour of the query heads that read it
  std::string label;      // drawn above when it fits ("K0", "latent 512")
};
struct TapeStyle {
  float px_per_element = 0.1f;
  float height = 300;     // px of the whole tape
  int rows_drawn = 16;    // ruled rows
  float new_row = 0;      // 0..1: the appended row slides in from below
  float sweep = -1;       // 0..1: a read head sweeping top to bottom; < 0 none
  float window_from = 0;  // rows outside [window_from, window_to] (fractions) are dimmed
  float window_to = 1;
  float alpha = 1.0f;
};
// Width in px of a tape (pure): sum of column widths plus gaps, each column at least 1 px.
float tape_width(const std::vector<TapeColumn>& cols, float px_per_element, float gap);
// Draws the tape with its top-left corner at `at`; returns its bottom-right corner.
ImVec2 draw_tape(ImDrawList* dl, ImFont* font, ImVec2 at, const std::vector<TapeColumn>& cols,
                 const TapeStyle& style);

}  // namespace vis
