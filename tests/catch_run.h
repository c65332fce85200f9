// Runs the Catch2 session on the command line (tests/catch_impl.cpp); a test main returns it.
#pragma once

int catch_run(int argc, char** argv);
