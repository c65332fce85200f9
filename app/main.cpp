// attnlab: the explorer's main loop, in the shape of Dear ImGui's example_sdl_opengl3 (numbered
// steps, cleanup in reverse order of setup). The command line comes first: a subcommand runs
// and returns without touching SDL; no arguments or --screenshot open the window.
//
// Screenshot mode (--screenshot out.png): no settings or imgui.ini are read or written (the
// picture depends only on the flags), vsync is off, the animation clock advances 1/60 s per
// frame, and after --frames N frames the back buffer is read, flipped and saved as a PNG.
// Exit codes: 0 saved; 2 the file cannot be written; 3 no display / no OpenGL context. Without
// any display (DISPLAY and WAYLAND_DISPLAY unset) a screenshot is rendered with SDL's offscreen
// driver; the interactive explorer exits 3.
// ATTNLAB_FRAME_STATS=1 prints frame timings to stderr in screenshot mode; ATTNLAB_FRAME_BENCH
// runs a benchmark meanwhile (app/frame_measure.h, tools/frame_check.sh).
#include <SDL.h>
#include <SDL_opengl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "app/app_state.h"
#include "app/cli/cli.h"
#include "app/explorer.h"
#include "app/frame_measure.h"
#include "app/frame_stats.h"
#include "app/job_runner.h"
#include "app/learn/learn_view.h"
#include "app/png_export.h"
#include "app/settings.h"
#include "app/settings_saver.h"
#include "app/style.h"
#include "kernels/gpu.h"

namespace {

using Clock = std::chrono::steady_clock;

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "attnlab: error: %s\n", what.c_str());
  return code;
}

std::vector<std::uint8_t> read_back_buffer(int w, int h) {
  std::vector<std::uint8_t> px(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;  // the window is opaque
  return px;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// The window and its OpenGL context (GL 3.0 + GLSL 130, as the example on Linux).
struct Window {
  SDL_Window* sdl = nullptr;
  SDL_GLContext gl = nullptr;
  std::string video_driver;  // SDL's: x11, wayland, offscreen, ...
  std::string gl_renderer;   // GL_RENDERER
};

// SDL and the window; on failure returns the exit code (3) with SDL shut down, else 0.
int open_window(const app::ExplorerOptions& opt, bool screenshot, Window* w) {
  if (!env_set("DISPLAY") && !env_set("WAYLAND_DISPLAY") && !env_set("SDL_VIDEODRIVER")) {
    // No display at all: a screenshot can still be rendered offscreen (Mesa through EGL);
    // an interactive window cannot be shown.
    if (!screenshot)
      return fail(3,
                  "no display for the explorer (DISPLAY and WAYLAND_DISPLAY are unset); "
                  "run it in a desktop session or under Xvfb, or use --screenshot or a subcommand");
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
  }
  if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0)
    return fail(3, std::string("cannot open a display for the explorer (SDL: ") + SDL_GetError() +
                       "); set DISPLAY (e.g. run under Xvfb) or use a subcommand");
  // SDL falls back to its offscreen driver where no display exists: fine for a screenshot, but
  // an interactive window there would be invisible, so that is "no display".
  w->video_driver = SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "";
  if (!screenshot && (w->video_driver == "offscreen" || w->video_driver == "dummy")) {
    SDL_Quit();
    return fail(
        3, "no display for the explorer (SDL chose its '" + w->video_driver +
               "' driver); set DISPLAY or WAYLAND_DISPLAY, or use --screenshot or a subcommand");
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  // No depth or stencil buffer (the example asks for 24 + 8): ImGui uses neither, and on Mesa's
  // software renderer they cost time every frame.
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);
  const auto window_flags = static_cast<SDL_WindowFlags>(SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE |
                                                         SDL_WINDOW_ALLOW_HIGHDPI);
  w->sdl = SDL_CreateWindow("attnlab: attention variants explorer", SDL_WINDOWPOS_CENTERED,
                            SDL_WINDOWPOS_CENTERED, opt.width, opt.height, window_flags);
  if (!w->sdl) {
    const std::string why = SDL_GetError();
    SDL_Quit();
    return fail(3, "cannot create the window (SDL: " + why + ")");
  }
  w->gl = SDL_GL_CreateContext(w->sdl);
  if (!w->gl) {
    const std::string why = SDL_GetError();
    SDL_DestroyWindow(w->sdl);
    SDL_Quit();
    return fail(3, "cannot create an OpenGL 3.0 context (SDL: " + why + ")");
  }
  SDL_GL_MakeCurrent(w->sdl, w->gl);
  SDL_GL_SetSwapInterval(screenshot ? 0 : 1);  // vsync, except when rendering for a file
  const GLubyte* renderer_name = glGetString(GL_RENDERER);
  w->gl_renderer = renderer_name ? reinterpret_cast<const char*>(renderer_name) : "unknown";
  return 0;
}

// Dear ImGui's context, its ini beside attnlab's settings (none in screenshot mode), the fonts
// and style at the app's UI scale, and the SDL2 + OpenGL3 backends.
void setup_imgui(app::App& app, const Window& w, bool screenshot, const std::string& ini_path) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  if (screenshot) {
    io.IniFilename = nullptr;
  } else {
    const std::string dir = std::filesystem::path(ini_path).parent_path().string();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    io.IniFilename = ec ? nullptr : ini_path.c_str();
    if (ec) app::post_message(app, "cannot create " + dir + ": window layout will not be saved");
  }
  app::setup_fonts_and_style(app.ui_scale);
  ImGui_ImplSDL2_InitForOpenGL(w.sdl, w.gl);
  ImGui_ImplOpenGL3_Init("#version 130");
}

// Nearest sampling of the font atlas (glyphs are rasterised at 1x, style.cpp), once for each
// new atlas texture.
void sample_font_atlas_nearest(ImTextureID* filtered) {
  ImGuiIO& io = ImGui::GetIO();
  if (*filtered == io.Fonts->TexID) return;
  GLint last = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &last);
  glBindTexture(GL_TEXTURE_2D,
                static_cast<GLuint>(reinterpret_cast<std::intptr_t>(io.Fonts->TexID)));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(last));
  *filtered = io.Fonts->TexID;
}

// What the frame loop keeps between frames.
struct Loop {
  bool screenshot = false;
  bool frame_stats = false;
  app::MeasureOptions measure;
  float applied_scale = 1.0f;
  ImTextureID font_texture_filtered = nullptr;
  std::vector<app::FrameRecord> records;
  int last_vertices = 0, last_commands = 0;
  std::int64_t shot_start = 0;  // --learn all: the frame the current beat started on
  bool start_pending = false;   // --start: the job is started after the first frame
  int idle_frames = 0;          // --start: frames begun with the job finished (results shown)
  double first_frame_ms = 0;
  Clock::time_point t_start, t_prev, t_last_save;
  std::string last_saved;  // the settings JSON last handed to the saver
  int exit_code = 0;
  bool done = false;
};

// One frame: events, UI scale, the UI, GL drawing, pictures, swap, pacing and settings.
void run_frame(app::App& app, const app::ExplorerOptions& opt, const Window& w,
               app::SettingsSaver& saver, Loop& L) {
  app::FrameRecord rec;
  rec.frame = app.frame;
  rec.job_running = app::latency_job_running(app);
  L.idle_frames = (L.start_pending || rec.job_running) ? 0 : L.idle_frames + 1;
  Clock::time_point t_phase = L.t_prev;  // the frame starts where the last one ended
  const auto phase_done = [&](app::FramePhase p) {
    const Clock::time_point now = Clock::now();
    rec.phase_ms[static_cast<size_t>(p)] += ms_between(t_phase, now);
    t_phase = now;
  };
  const Clock::time_point t_frame = L.t_prev;
  ImGuiIO& io = ImGui::GetIO();
  // a. Events.
  SDL_Event event;
  while (SDL_PollEvent(&event)) {
    ImGui_ImplSDL2_ProcessEvent(&event);
    if (event.type == SDL_QUIT) L.done = true;
    if (event.type == SDL_WINDOWEVENT && event.window.event == SDL_WINDOWEVENT_CLOSE &&
        event.window.windowID == SDL_GetWindowID(w.sdl))
      L.done = true;
  }
  phase_done(app::FramePhase::kEvents);
  // b. A new UI scale (from View > UI scale) once the slider is released.
  if (app.ui_scale != L.applied_scale && !ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
    L.applied_scale = app.ui_scale;
    app::setup_fonts_and_style(L.applied_scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  phase_done(app::FramePhase::kFonts);
  // c. The UI, then its drawing.
  app.clock_s = L.screenshot ? static_cast<double>(app.frame) / 60.0
                             : std::chrono::duration<double>(t_frame - L.t_start).count();
  ImGui_ImplOpenGL3_NewFrame();  // creates the font texture on the first frame
  sample_font_atlas_nearest(&L.font_texture_filtered);
  ImGui_ImplSDL2_NewFrame();
  if (L.screenshot) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover readouts in pictures
  phase_done(app::FramePhase::kBackendNewFrame);
  ImGui::NewFrame();
  phase_done(app::FramePhase::kImGuiNewFrame);
  app::draw_frame(app);
  phase_done(app::FramePhase::kPanels);
  rec.panel_ms = app.ui.panel_ms;
  ImGui::Render();
  phase_done(app::FramePhase::kRender);
  const ImDrawData* draw = ImGui::GetDrawData();
  L.last_vertices = draw->TotalVtxCount;
  L.last_commands = 0;
  for (int i = 0; i < draw->CmdListsCount; ++i)
    L.last_commands += draw->CmdLists[i]->CmdBuffer.Size;
  // In screenshot mode GL draws only the frames that are saved: the others run the UI (its
  // animations and jobs) but nobody sees them, and a software GL spends most of a frame drawing.
  // Frame statistics time every frame, so there every frame is drawn.
  const bool shot_due =
      L.screenshot &&
      (opt.learn_all ? app.frame - L.shot_start >= opt.frames
                     : app.frame >= opt.frames && (opt.start.empty() || L.idle_frames >= 3));
  const bool draw_gl = !L.screenshot || L.frame_stats || shot_due;
  int fb_w = 0, fb_h = 0;
  SDL_GL_GetDrawableSize(w.sdl, &fb_w, &fb_h);
  if (draw_gl) {
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.10f, 0.11f, 0.13f, 1.00f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  }
  phase_done(app::FramePhase::kGlDraw);
  // d. Pictures: the screenshot after N frames (--learn all: one per beat), or File > Export.
  if (shot_due && opt.learn_all) {
    const std::string base = opt.screenshot.substr(0, opt.screenshot.size() - 4);
    const std::string path = base + "-" + std::to_string(app.learn.chapter + 1) + "." +
                             std::to_string(app.learn.beat + 1) + ".png";
    try {
      app::write_png_bottom_up(path, fb_w, fb_h, read_back_buffer(fb_w, fb_h));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attnlab: error: %s\n", e.what());
      L.exit_code = 2;
      L.done = true;
    }
    const int chapter = app.learn.chapter, beat = app.learn.beat;
    app::learn::next_beat(app);
    if (app.learn.chapter == chapter && app.learn.beat == beat) L.done = true;  // the last one
    L.shot_start = app.frame;
  } else if (shot_due) {
    rec.screenshot = true;
    try {
      app::write_png_bottom_up(opt.screenshot, fb_w, fb_h, read_back_buffer(fb_w, fb_h));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attnlab: error: %s\n", e.what());
      L.exit_code = 2;
    }
    L.done = true;
  } else if (!app.ui.png_request.empty()) {
    try {
      app::write_png_bottom_up(app.ui.png_request, fb_w, fb_h, read_back_buffer(fb_w, fb_h));
      app::post_message(app, "wrote " + app.ui.png_request);
    } catch (const std::exception& e) {
      app::post_message(app, e.what());
    }
    app.ui.png_request.clear();
  }
  phase_done(app::FramePhase::kReadback);
  if (draw_gl) SDL_GL_SwapWindow(w.sdl);
  phase_done(app::FramePhase::kSwap);
  // e. At most 60 frames a second when interactive (vsync does not block on every X server,
  // Xvfb among them), then the settings file when something changed (checked once a second;
  // the saver's worker writes it, never this thread).
  if (!L.screenshot || L.measure.pace) {
    const double spent = ms_between(t_frame, Clock::now());
    if (spent < 1000.0 / 60.0) SDL_Delay(static_cast<Uint32>(1000.0 / 60.0 - spent));
  }
  phase_done(app::FramePhase::kPace);
  if (!L.screenshot && ms_between(L.t_last_save, t_phase) > 1000.0) {
    L.t_last_save = t_phase;
    std::string now = app::settings_to_json(app::settings_from_app(app));
    if (now != L.last_saved) {
      L.last_saved = now;
      saver.save(std::move(now));
    }
    if (auto err = saver.take_error()) app::post_message(app, "settings not saved: " + *err);
  }
  phase_done(app::FramePhase::kSettings);
  // f. The frame's timings.
  const Clock::time_point t_end = t_phase;
  if (app.frame == 1) L.first_frame_ms = ms_between(L.t_start, t_end);
  rec.total_ms = ms_between(L.t_prev, t_end);
  rec.job_running = rec.job_running || app::latency_job_running(app);
  if (rec.job_running && L.frame_stats && app.latency.runner)
    rec.job_case = app.latency.runner->progress().index;
  if (L.frame_stats) L.records.push_back(rec);
  L.t_prev = t_end;
  // g. --start: after the first frame, the job a latency-panel button starts (its result shows
  // in the frames after it finishes; a screenshot waits for that).
  if (L.start_pending && app.frame >= 1) {
    L.start_pending = false;
    std::string err;
    if (!app::start_option_job(app, opt.start, &err)) app::post_message(app, err);
  }
  // h. ATTNLAB_FRAME_BENCH: after the first frame, start the benchmark from the latency panel
  // (as its Run button does) and keep rendering while it runs.
  if (!L.measure.bench.empty() && app.frame == 1 && !start_measured_bench(app, L.measure)) {
    std::fprintf(stderr, "attnlab: error: ATTNLAB_FRAME_BENCH=%s: %s\n", L.measure.bench.c_str(),
                 app.latency.job_error.c_str());
    L.exit_code = 2;
    L.done = true;
  }
}

// ATTNLAB_FRAME_STATS=1: one summary of the frames on stderr (the first frame includes start-up
// and is reported apart; the rest are steady).
void report_frame_stats(const app::App& app, const app::ExplorerOptions& opt, const Window& w,
                        const Loop& L) {
  if (!L.frame_stats || L.records.empty()) return;
  std::vector<app::FrameRecord> steady(L.records.begin() + 1, L.records.end());
  int job_frames = 0;
  for (const app::FrameRecord& r : steady) job_frames += r.job_running ? 1 : 0;
  std::fprintf(
      stderr,
      "attnlab: frame stats: %d frames at %dx%d, first frame %.1f ms after start; "
      "%d vertices in %d draw calls; GL renderer: %s (SDL video: %s); %s; LP_NUM_THREADS=%s\n",
      static_cast<int>(L.records.size()), opt.width, opt.height, L.first_frame_ms, L.last_vertices,
      L.last_commands, w.gl_renderer.c_str(), w.video_driver.c_str(),
      L.measure.pace ? "paced to 60 Hz" : "unpaced (frames back to back)",
      std::getenv("LP_NUM_THREADS") ? std::getenv("LP_NUM_THREADS") : "unset");
  std::fputs(app::frame_report(steady).c_str(), stderr);
  if (!L.measure.bench.empty()) {
    const app::JobProgress p =
        app.latency.runner ? app.latency.runner->progress() : app::JobProgress{};
    std::fprintf(stderr,
                 "attnlab: frame stats: benchmark '%s' on the CPU with %d thread(s): %s, case %d "
                 "of %d after %.1f s, during %d of the measured frames\n",
                 L.measure.bench.c_str(), L.measure.threads_used, app::job_state_name(p.state),
                 p.index + 1, p.total, p.elapsed_s, job_frames);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Loop L;
  L.t_start = Clock::now();

  // 1. The command line: a subcommand runs here and we are done.
  const app::CliOutcome cli = app::run_cli(argc, argv);
  if (!cli.open_explorer) return cli.exit_code;
  const app::ExplorerOptions& opt = cli.explorer;
  L.screenshot = !opt.screenshot.empty();
  L.frame_stats = L.screenshot && env_set("ATTNLAB_FRAME_STATS") &&
                  std::string(std::getenv("ATTNLAB_FRAME_STATS")) == "1";
  if (L.screenshot) {  // ATTNLAB_FRAME_* (app/frame_measure.h), screenshot mode only
    std::string err;
    if (!app::measure_options_from_env(&L.measure, &err)) return fail(2, err);
  }

  // 2. App state: settings (interactive only), the device, then the command-line options.
  app::App app;
  const std::string config_dir = app::settings_dir();
  if (L.screenshot) {
    app::apply_settings(app::Settings{}, app);
  } else {
    const app::LoadedSettings loaded = app::load_settings(config_dir);
    app::apply_settings(loaded.settings, app);
    if (!loaded.warning.empty()) app::post_message(app, loaded.warning);
  }
  app.device = kern::query_device();
  {
    std::string err;
    if (!app::apply_explorer_options(app, opt, &err)) return fail(2, err);
  }

  // 3. SDL, the window and its OpenGL context.
  Window window;
  if (const int rc = open_window(opt, L.screenshot, &window)) return rc;

  // 4. Dear ImGui, fonts and style; 5. its SDL2 and OpenGL3 backends.
  const std::string ini_path = config_dir + "/imgui.ini";
  setup_imgui(app, window, L.screenshot, ini_path);
  L.applied_scale = app.ui_scale;

  // 6. The main loop.
  L.t_prev = L.t_last_save = Clock::now();
  L.start_pending = !opt.start.empty();
  L.last_saved = app::settings_to_json(app::settings_from_app(app));
  app::SettingsSaver saver(config_dir);  // writes settings.json off the UI thread
  while (!L.done) run_frame(app, opt, window, saver, L);
  report_frame_stats(app, opt, window, L);
  if (!L.screenshot) {
    // At exit: the final state (also when unchanged: a file whose bad fields fell back is
    // rewritten whole), written before the program ends.
    saver.save(app::settings_to_json(app::settings_from_app(app)));
    saver.flush();
    if (auto err = saver.take_error())
      std::fprintf(stderr, "attnlab: warning: settings not saved: %s\n", err->c_str());
  }

  // 7. Cleanup, in reverse order of setup.
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  SDL_GL_DeleteContext(window.gl);
  SDL_DestroyWindow(window.sdl);
  SDL_Quit();
  return L.exit_code;
}
