// The main of attnlab_tests (Catch2's implementation: tests/catch_impl.cpp).
#include "tests/catch_run.h"

int main(int argc, char** argv) { return catch_run(argc, argv); }
