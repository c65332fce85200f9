// Small ImGui widgets shared by the panels: the (?) help marker of imgui_demo.cpp, a labelled
// value with its help, and the colours that tie query heads to the kv head they share.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace vis {

// "(?)" in the disabled colour; hovering shows `text` wrapped at ~35 em. Place after SameLine().
void help_marker(const char* text);
// "label: value (?)" on one line; value in the normal text colour, label dimmed.
void labelled_value(const char* label, const std::string& value, const char* help = nullptr);
// Red error text, wrapped, for validation messages shown beside a field.
void error_text(const std::string& message);

// Colour of kv head `kv_head` out of `kv_heads` (hues spread around the wheel, so neighbours
// differ). Query head h uses kv_head_color(h / G, Hkv). alpha in [0, 1].
ImU32 kv_head_color(int kv_head, int kv_heads, float alpha = 1.0f);
// The hue in [0, 1) used by kv_head_color (pure, tested): golden-ratio steps from 0.58.
float kv_head_hue(int kv_head, int kv_heads);

// One cell per layer, wrapped into rows: full layers filled in the full colour, sliding ones in
// the window colour. Hover shows "layer i: full" / "layer i: sliding (W w)". Returns the index
// of a clicked cell, or -1.
int layer_strip(const char* id, const std::vector<bool>& sliding, int window, float row_height);
ImU32 full_layer_color();
ImU32 sliding_layer_color();

// A colour for each attention family, used wherever variants are compared.
ImU32 variant_color(int variant_index);  // attn::Variant cast to int

}  // namespace vis
