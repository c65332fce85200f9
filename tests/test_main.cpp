// The Catch2 main of attnlab_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
