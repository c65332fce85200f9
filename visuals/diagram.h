// Boxes and arrows for the data-flow panel: a canvas in local coordinates (laid out once at a
// design size, scaled to the space the window gives), labelled boxes for tensors and weights,
// and arrows between box edges. Geometry helpers are pure and tested.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace vis {

// ---- Pure geometry --------------------------------------------------------------------------

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
  ImVec2 center() const { return ImVec2(x + w * 0.5f, y + h * 0.5f); }
  bool overlaps(const Rect& o) const {
    return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h;
  }
};

// The point where the segment from r's centre toward `toward` leaves r (on its border).
ImVec2 rect_exit_point(const Rect& r, ImVec2 toward);
// The two back corners of an arrow head at `tip` for a shaft coming from `from`.
void arrow_head(ImVec2 from, ImVec2 tip, float size, ImVec2* left, ImVec2* right);
// Largest scale s <= max_scale with content * s fitting in avail (both positive).
float fit_scale(ImVec2 content, ImVec2 avail, float max_scale);

// ---- Drawing --------------------------------------------------------------------------------

enum class BoxStyle { kTensor, kWeight, kCache, kOp };

struct Box {
  Rect rect;          // local (design) coordinates
  std::string title;  // "K cache"
  std::string shape;  // "[B, S, Hkv, D] = [1, 32768, 8, 128]"
  std::string note;   // third line, dimmer ("bf16, 4.00 GiB"), optional
  BoxStyle style = BoxStyle::kTensor;
  ImU32 accent = 0;        // 0: by style
  bool highlight = false;  // drawn with a thicker border
};

// A region reserved in the window (an InvisibleButton), with a local->screen mapping.
class Canvas {
 public:
  // Reserves `design` scaled to fit the available width (or max_width when > 0; never above
  // 1.5x, never below 0.5x of the font-relative design), starting at the cursor.
  void begin(const char* id, ImVec2 design, float max_width = 0);
  ImVec2 to_screen(ImVec2 local) const;
  float scale() const { return scale_; }
  ImDrawList* draw_list() const { return dl_; }
  bool hovered() const { return hovered_; }

  void box(const Box& b) const;
  // An arrow from box a's border toward b's border, with an optional label at its middle.
  void arrow(const Rect& a, const Rect& b, const std::string& label = "", ImU32 color = 0) const;
  void arrow_points(ImVec2 from, ImVec2 to, const std::string& label = "", ImU32 color = 0) const;
  void text(ImVec2 local, const std::string& s, ImU32 color = 0) const;

 private:
  ImDrawList* dl_ = nullptr;
  ImVec2 origin_;
  float scale_ = 1.0f;
  bool hovered_ = false;
};

}  // namespace vis
