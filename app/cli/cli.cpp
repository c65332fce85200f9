// attnlab's command line (docs/DESIGN.md section 3): the root parser, the explorer flags, and the
// one place where every error becomes one "attnlab: error: ..." line and an exit code.
//
//   0 success; 2 bad input or usage; 3 the device failed (no GPU, out of memory, kernel error).
#include "app/cli/cli.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <new>
#include <string>

#include "app/cli/cli_internal.h"
#include "attention/units.h"
#include "attention/config.h"
#include "attention/error.h"
#include "attention/presets.h"
#include "kernels/bench.h"
#include "kernels/gpu.h"

#ifndef ATTNLAB_VERSION
#define ATTNLAB_VERSION "0.1.0"
#endif

namespace app {
namespace {

using cli::format;

// One line, printable: CLI11's and the library's messages may span lines.
std::string one_line(std::string s) {
  for (char& ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '\n' || ch == '\r' || ch == '\t')
      ch = ' ';
    else if (u < 0x20 || u == 0x7f)
      ch = '?';
  }
  std::string out;
  for (char ch : s) {
    if (ch == ' ' && !out.empty() && out.back() == ' ') continue;
    out += ch;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '.')) out.pop_back();
  while (!out.empty() && out.front() == ' ') out.erase(out.begin());
  return out.empty() ? std::string("unknown error") : out;
}

int fail(const std::string& message, int code) {
  std::fflush(stdout);
  std::fprintf(stderr, "attnlab: error: %s\n", one_line(message).c_str());
  std::fflush(stderr);
  return code;
}

std::string limits_text() {
  using L = attn::Limits;
  return format(
      "Limits (rejected with a message before anything is allocated):\n"
      "  largest tensor file (.npy)   %s (%lld bytes)\n"
      "  largest config.json          %s (%lld bytes)\n"
      "  layers                       %d\n"
      "  heads (Hq, Hkv)              %d\n"
      "  head dims (D, Dl, Dr)        %d\n"
      "  sequence length S, window W  %lld\n"
      "  batch B                      %lld\n"
      "\n"
      "Exit codes: 0 success, 2 bad input or usage, 3 the device failed (no GPU, out of memory,\n"
      "kernel error). Errors are one line on stderr starting 'attnlab: error: '.\n"
      "Run 'attnlab SUBCOMMAND --help' for a subcommand's flags.",
      attn::format_bytes(static_cast<double>(L::kMaxTensorBytes)).c_str(),
      static_cast<long long>(L::kMaxTensorBytes),
      attn::format_bytes(static_cast<double>(L::kMaxConfigBytes)).c_str(),
      static_cast<long long>(L::kMaxConfigBytes), L::kMaxLayers, L::kMaxHeads, L::kMaxHeadDim,
      static_cast<long long>(L::kMaxSeq), static_cast<long long>(L::kMaxBatch));
}

// The explorer's flags (no subcommand): validated here, acted on by the GUI.
struct ExplorerFlags {
  std::string screenshot, preset, variant, panel, size, frames, learn, compare, start;
  bool workbench = false;
  CLI::Option *screenshot_opt = nullptr, *preset_opt = nullptr, *variant_opt = nullptr,
              *panel_opt = nullptr, *size_opt = nullptr, *frames_opt = nullptr,
              *learn_opt = nullptr, *compare_opt = nullptr, *workbench_opt = nullptr,
              *start_opt = nullptr;

  void add(CLI::App& root) {
    screenshot_opt = root.add_option("--screenshot", screenshot,
                                     "Open the explorer, render --frames frames, save the window "
                                     "as this PNG and exit (any X display, Xvfb too)")
                         ->type_name("OUT.png");
    preset_opt =
        root.add_option("--preset", preset, "Explorer: model preset to show")->type_name("NAME");
    variant_opt =
        root.add_option("--variant", variant, "Explorer: what-if variant (mha, mqa, gqa, swa, mla)")
            ->type_name("V");
    std::string panels;
    for (const auto& p : panel_names()) panels += (panels.empty() ? "" : ", ") + p;
    panel_opt = root.add_option("--panel", panel, "Explorer: panel to focus (" + panels + ")")
                    ->type_name("NAME");
    learn_opt = root.add_option("--learn", learn,
                                "Explorer: open the Learn view at chapter N, beat M (1-based); "
                                "with --screenshot, 'all' saves every beat")
                    ->type_name("N[.M]|all");
    compare_opt = root.add_option("--compare", compare,
                                  "Explorer: open the Compare view with 2 to 4 columns, each a "
                                  "variant of the model (mha, mqa, gqa, swa, mla) or a preset")
                      ->type_name("A,B[,C,D]");
    workbench_opt =
        root.add_flag("--workbench", workbench, "Explorer: open the Workbench (the panels)");
    start_opt = root.add_option("--start", start,
                                "Explorer: start a job as the latency panel's buttons do: "
                                "cpu:W or gpu:W (W = model, sweep, peers, amd-mixed-mla, amd-mla) or "
                                "side-by-side; a --screenshot waits for it to finish")
                    ->type_name("JOB");
    size_opt = root.add_option("--size", size, "Explorer: window size (default 1600x1000)")
                   ->type_name("WxH");
    frames_opt = root.add_option("--frames", frames,
                                 "Explorer: frames rendered before the screenshot (default 3)")
                     ->type_name("N");
  }

  ExplorerOptions validate() const {
    ExplorerOptions o;
    if (screenshot_opt->count()) {
      if (screenshot.empty())
        throw attn::InputError("--screenshot: expected a file name, found ''");
      std::string lower = screenshot;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower.size() < 5 || lower.compare(lower.size() - 4, 4, ".png") != 0)
        throw attn::InputError("--screenshot: expected a file name ending in .png, found '" +
                               screenshot + "'");
      const auto slash = screenshot.find_last_of('/');
      if (slash != std::string::npos) {
        const std::string dir = slash == 0 ? "/" : screenshot.substr(0, slash);
        struct stat st {};
        if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
          throw attn::InputError("--screenshot: folder '" + dir + "' does not exist");
      }
      o.screenshot = screenshot;
    }
    if (preset_opt->count()) o.preset = attn::find_preset(preset).name;
    if (variant_opt->count()) {
      if (!attn::parse_variant(variant))
        throw attn::InputError("--variant: expected one of mha, mqa, gqa, swa, mla, found '" +
                               variant + "'");
      o.variant = variant;
    }
    if (panel_opt->count()) {
      const auto& names = panel_names();
      if (std::find(names.begin(), names.end(), panel) == names.end()) {
        std::string known;
        for (const auto& p : names) known += (known.empty() ? "" : ", ") + p;
        throw attn::InputError("--panel: expected one of " + known + ", found '" + panel + "'");
      }
      o.panel = panel;
    }
    if (start_opt->count()) {
      std::vector<std::string> known = {"side-by-side"};
      for (const char* dev : {"cpu:", "gpu:"}) {
        known.push_back(std::string(dev) + "model");
        for (const std::string& s : kern::suite_names()) known.push_back(dev + s);
      }
      if (std::find(known.begin(), known.end(), start) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw attn::InputError("--start: expected one of " + list + ", found '" + start + "'");
      }
      o.start = start;
    }
    const int views = (panel_opt->count() || workbench_opt->count() || start_opt->count() ? 1 : 0) +
                      (learn_opt->count() ? 1 : 0) + (compare_opt->count() ? 1 : 0);
    if (views > 1)
      throw attn::InputError(
          "--learn, --compare and --workbench/--panel each open another view: give one");
    if (panel_opt->count() || workbench_opt->count() || start_opt->count()) o.view = "workbench";
    if (learn_opt->count() && learn == "all") {
      if (!screenshot_opt->count())
        throw attn::InputError(
            "--learn all: needs --screenshot OUT.png (each beat is saved as "
            "OUT-N.M.png)");
      o.view = "learn";
      o.learn_all = true;
      o.learn_chapter = 1;
      o.learn_beat = 1;
    } else if (learn_opt->count()) {
      o.view = "learn";
      const auto dot = learn.find('.');
      const std::string want =
          "--learn: expected N or N.M (chapter and beat, from 1), found '" + learn + "'";
      try {
        o.learn_chapter = static_cast<int>(cli::parse_int("--learn", learn.substr(0, dot), 1, 64));
        o.learn_beat =
            dot == std::string::npos
                ? 1
                : static_cast<int>(cli::parse_int("--learn", learn.substr(dot + 1), 1, 64));
      } catch (const attn::InputError&) {
        throw attn::InputError(want);
      }
    }
    if (compare_opt->count()) {
      o.view = "compare";
      std::string item;
      for (size_t i = 0; i <= compare.size(); ++i) {
        if (i < compare.size() && compare[i] != ',') {
          item += compare[i];
          continue;
        }
        if (!attn::parse_variant(item)) {
          bool known = false;
          for (const attn::ModelConfig& p : attn::presets()) known = known || p.name == item;
          if (!known)
            throw attn::InputError("--compare: '" + item +
                                   "' is neither a variant (mha, mqa, gqa, swa, mla) nor a preset "
                                   "(see 'attnlab presets')");
        }
        o.compare.push_back(item);
        item.clear();
      }
      if (o.compare.size() < 2 || o.compare.size() > 4)
        throw attn::InputError("--compare: expected 2 to 4 comma-separated columns, found " +
                               std::to_string(o.compare.size()));
    }
    if (size_opt->count()) {
      const auto x = size.find_first_of("xX");
      const std::string want =
          "--size: expected WxH with W from 320 to 16384 and H from 240 to "
          "16384 (e.g. 1600x1000), found '" +
          size + "'";
      if (x == std::string::npos) throw attn::InputError(want);
      try {
        o.width = static_cast<int>(cli::parse_int("--size", size.substr(0, x), 320, 16384));
        o.height = static_cast<int>(cli::parse_int("--size", size.substr(x + 1), 240, 16384));
      } catch (const attn::InputError&) {
        throw attn::InputError(want);
      }
    }
    if (frames_opt->count())
      o.frames = static_cast<int>(cli::parse_int("--frames", frames, 1, 100000));
    return o;
  }
};

CliOutcome run_cli_impl(int argc, char** argv) {
  CliOutcome outcome;
  CLI::App root{
      "attnlab: explore the attention variants of LLMs (MHA, MQA, GQA, MLA, SWA and hybrids):\n"
      "KV-cache sizes, CPU references, GPU decode kernels and benchmarks.\n"
      "With no arguments it opens the explorer.",
      "attnlab"};
  root.set_version_flag(
      "--version", std::string("attnlab ") + ATTNLAB_VERSION + " (commit " + kern::build_commit() +
                       ", " + (kern::gpu_compiled() ? "GPU kernels" : "no GPU kernels") + ")");
  root.require_subcommand(0, 1);
  root.footer(limits_text());

  ExplorerFlags explorer;
  explorer.add(root);
  cli::PresetsCommand presets;
  cli::KvCommand kv;
  cli::RunCommand run;
  cli::BenchCommand bench;
  cli::CompareCommand compare;
  presets.add(root);
  kv.add(root);
  run.add(root);
  bench.add(root);
  compare.add(root);

  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help or --version
      const bool version = dynamic_cast<const CLI::CallForVersion*>(&e) != nullptr;
      const std::string text = version ? std::string(e.what()) : root.help();
      std::fputs(text.c_str(), stdout);
      if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
      std::fflush(stdout);
      outcome.exit_code = 0;
      return outcome;
    }
    std::string where = "attnlab";
    for (const CLI::App* sub : root.get_subcommands()) where += " " + sub->get_name();
    outcome.exit_code = fail(std::string(e.what()) + " (see '" + where + " --help')", 2);
    return outcome;
  }

  if (presets.sub->parsed())
    outcome.exit_code = presets.run();
  else if (kv.sub->parsed())
    outcome.exit_code = kv.run();
  else if (run.sub->parsed())
    outcome.exit_code = run.run();
  else if (bench.sub->parsed())
    outcome.exit_code = bench.run();
  else if (compare.sub->parsed())
    outcome.exit_code = compare.run();
  else {
    outcome.explorer = explorer.validate();
    outcome.open_explorer = true;
  }
  return outcome;
}

}  // namespace

CliOutcome run_cli(int argc, char** argv) {
  // A closed pipe on stdout becomes a write error with a message, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  CliOutcome outcome;
  try {
    return run_cli_impl(argc, argv);
  } catch (const attn::InputError& e) {
    outcome.exit_code = fail(e.what(), 2);
  } catch (const attn::DeviceError& e) {
    outcome.exit_code = fail(e.what(), 3);
  } catch (const std::bad_alloc&) {
    outcome.exit_code =
        cli::g_using_gpu ? fail(
                               "out of memory (the device or host could not allocate the "
                               "buffers for this input)",
                               3)
                         : fail("out of host memory (the input is too large for this machine)", 2);
  } catch (const std::exception& e) {
    outcome.exit_code = fail(std::string("unexpected failure: ") + e.what(), 2);
  } catch (...) {
    outcome.exit_code = fail("unexpected failure", 2);
  }
  outcome.open_explorer = false;
  return outcome;
}

}  // namespace app
