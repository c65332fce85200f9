// The attnlab command line (docs/DESIGN.md section 3). run_cli() parses and runs a subcommand, or
// says that the explorer should open (no arguments, or --screenshot).
#pragma once
#include <string>
#include <vector>

#include "app/panel_table.h"

namespace app {


struct ExplorerOptions {
  std::string screenshot;  // empty: interactive; else save the window here as PNG and exit
  std::string preset;      // empty: last session's (or llama-3-8b)
  std::string variant;     // empty: the preset's own; else what-if variant name
  std::string panel;       // empty: all panels; else that panel focused (implies the workbench)
  // Which view opens: "" (the saved one; a first start or a screenshot: learn), "learn",
  // "workbench" or "compare". --panel means the workbench, --learn the lesson, --compare the
  // comparison.
  std::string view;
  int learn_chapter = 0;  // --learn N[.M]: 1-based chapter and beat (0 = not given)
  int learn_beat = 0;
  // --learn all (with --screenshot OUT.png): every beat in turn, each saved as OUT-N.M.png
  // after --frames frames.
  bool learn_all = false;
  std::vector<std::string> compare;  // --compare a,b[,c[,d]]: variant or preset names
  // --start JOB: after the first frame, start what a button in the latency panel starts:
  // "cpu:W" / "gpu:W" (Run, W = model, sweep, peers, amd-mixed-mla) or "side-by-side"; with
  // --screenshot the picture waits until the job has finished. Implies the workbench.
  std::string start;
  int width = 1600;
  int height = 1000;
  int frames = 3;  // frames rendered before the screenshot
};

struct CliOutcome {
  bool open_explorer = false;
  int exit_code = 0;
  ExplorerOptions explorer;
};

// Never throws: errors are printed as one "attnlab: error: ..." line with exit 2 or 3.
CliOutcome run_cli(int argc, char** argv);

}  // namespace app
