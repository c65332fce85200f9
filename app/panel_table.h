// The Workbench's panels, listed once: id, --panel name, window title, menu label and whether a
// first start shows it. Layout, settings, frame stats and the CLI read this table;
// the draw functions, one file each, are listed in the same order in app/panels.h. No ImGui
// here: the command line (which links no GUI code) reads the names too.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace app {

enum class PanelId : int { kModel, kKvCache, kDataFlow, kAttention, kLatency };
inline constexpr std::size_t kPanelCount = 5;

struct PanelInfo {
  PanelId id;
  const char* name;   // --panel NAME, settings.json's "show" keys
  const char* title;  // the window's title (also its ImGui id, so imgui.ini keys on it)
  const char* menu;   // Panels menu label
  bool shown_at_first_start;
};

inline constexpr std::array<PanelInfo, kPanelCount> kPanelTable = {{
    {PanelId::kModel, "model", "Model and variant", "Model and variant", true},
    {PanelId::kKvCache, "kv-cache", "KV cache", "KV cache", true},
    {PanelId::kDataFlow, "data-flow", "Data flow", "Data flow", true},
    {PanelId::kAttention, "attention", "Attention patterns", "Attention patterns", true},
    {PanelId::kLatency, "latency", "Decode latency", "Decode latency", true},
}};

constexpr std::size_t index_of(PanelId id) { return static_cast<std::size_t>(id); }
constexpr const PanelInfo& panel_info(PanelId id) { return kPanelTable[index_of(id)]; }

// Which panels are shown, indexed by PanelId.
using PanelFlags = std::array<bool, kPanelCount>;
constexpr PanelFlags first_start_panels() {
  PanelFlags f{};
  for (std::size_t i = 0; i < kPanelCount; ++i) f[i] = kPanelTable[i].shown_at_first_start;
  return f;
}

// The --panel names in table order.
inline const std::vector<std::string>& panel_names() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const PanelInfo& p : kPanelTable) v.emplace_back(p.name);
    return v;
  }();
  return k;
}

// Index of the panel called `name`, or -1.
inline int panel_index(std::string_view name) {
  for (std::size_t i = 0; i < kPanelCount; ++i)
    if (name == kPanelTable[i].name) return static_cast<int>(i);
  return -1;
}

}  // namespace app
