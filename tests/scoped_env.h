// An environment variable set for a scope (nullptr: unset) and restored at its end, also when a
// failed REQUIRE leaves the scope early, so one test's overrides never leak into the next.
#pragma once
#include <cstdlib>
#include <string>

namespace test_env {

struct ScopedEnv {
  std::string name;
  bool had = false;
  std::string old;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* e = std::getenv(n)) {
      had = true;
      old = e;
    }
    if (value)
      ::setenv(n, value, 1);
    else
      ::unsetenv(n);
  }
  ~ScopedEnv() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace test_env
