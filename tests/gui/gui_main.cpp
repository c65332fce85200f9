// Catch2 main of attnlab_gui_tests: panels in a headless ImGui context (no backend, no display)
// and the pure maths of visuals/ and app/ (axes, units, layout, settings).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
