// A Dear ImGui context without a backend: display size set, the font atlas built (the same
// DejaVu / built-in font as the program), frames begun and ended by hand.
#pragma once
#include <imgui.h>
#include <imgui_internal.h>

#include "app/style.h"

namespace gui_test {

class HeadlessImGui {
 public:
  explicit HeadlessImGui(float w = 1600, float h = 1000) {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(w, h);
    io.DeltaTime = 1.0f / 60.0f;
    app::setup_fonts_and_style(1.0f);
    unsigned char* pixels = nullptr;
    int tw = 0, th = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &tw, &th);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1)));
  }
  ~HeadlessImGui() { ImGui::DestroyContext(ctx_); }
  HeadlessImGui(const HeadlessImGui&) = delete;
  HeadlessImGui& operator=(const HeadlessImGui&) = delete;

  void begin_frame() { ImGui::NewFrame(); }
  // Ends the frame; true when every Begin had its End (ImGui's stack is back to empty) and the
  // draw data is valid. (A window's first frame may draw nothing: ImGui sizes it first.)
  bool end_frame() {
    ImGui::Render();
    const ImDrawData* d = ImGui::GetDrawData();
    return ctx_->CurrentWindowStack.Size == 0 && d && d->Valid;
  }
  int vertices() const {
    const ImDrawData* d = ImGui::GetDrawData();
    return d ? d->TotalVtxCount : 0;
  }
  ImGuiContext* context() const { return ctx_; }
  // The window `name` was drawn in the last frame.
  bool window_active(const char* name) const {
    ImGuiWindow* w = ImGui::FindWindowByName(name);
    return w && w->Active;
  }

 private:
  ImGuiContext* ctx_ = nullptr;
};

}  // namespace gui_test
