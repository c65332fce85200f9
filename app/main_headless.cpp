// attnlab without the explorer (a build without SDL2/ImGui, as on a GPU machine with no
// desktop libraries): the command line only.
#include <cstdio>

#include "app/cli/cli.h"

int main(int argc, char** argv) {
  const app::CliOutcome r = app::run_cli(argc, argv);
  if (!r.open_explorer) return r.exit_code;
  std::fprintf(stderr,
               "attnlab: error: this build has no explorer (SDL2/ImGui were not found at build "
               "time); use a subcommand, see 'attnlab --help'\n");
  return 2;
}
