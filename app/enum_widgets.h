// ImGui's combo and radio button for enum class choices (ImGui's own take an int).
#pragma once
#include <imgui.h>

namespace app {

// A combo over `items` (in the enum's order, from 0).
template <class E>
bool enum_combo(const char* label, E* value, const char* const items[], int count) {
  int i = static_cast<int>(*value);
  const bool changed = ImGui::Combo(label, &i, items, count);
  if (changed) *value = static_cast<E>(i);
  return changed;
}

// A radio button that selects `which`.
template <class E>
bool enum_radio(const char* label, E* value, E which) {
  const bool pressed = ImGui::RadioButton(label, *value == which);
  if (pressed) *value = which;
  return pressed;
}

}  // namespace app
