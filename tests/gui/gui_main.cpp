// Main of attnlab_gui_tests: panels in a headless ImGui context (no backend, no display) and the
// pure maths of visuals/ and app/ (axes, layout, settings). Catch2: tests/catch_impl.cpp.
#include "tests/catch_run.h"

int main(int argc, char** argv) { return catch_run(argc, argv); }
