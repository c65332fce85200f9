// Catch2's implementation, compiled once and linked into every test executable. Each keeps
// its own main (tests/test_main.cpp, tests/gui/gui_main.cpp, tests/gpu/gpu_main.cpp), which
// runs the session through catch_run() (Catch::Session is declared only where the
// implementation is).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_run.h"

int catch_run(int argc, char** argv) { return Catch::Session().run(argc, argv); }
