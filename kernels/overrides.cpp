#include "kernels/overrides.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace kern {

int env_int(const char* name, int unset) {
  const char* e = std::getenv(name);
  if (!e || !*e || std::isspace(static_cast<unsigned char>(*e))) return unset;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(e, &end, 10);
  if (errno != 0 || *end != '\0' || v < INT_MIN || v > INT_MAX) return unset;
  return static_cast<int>(v);
}

Overrides read_overrides() {
  Overrides o;
  o.grouped_version = env_int("ATTNLAB_GROUPED_VERSION");
  o.grouped_splits = env_int("ATTNLAB_GROUPED_SPLITS");
  o.grouped_stages = env_int("ATTNLAB_GROUPED_STAGES");
  if (const char* e = std::getenv("ATTNLAB_GROUPED_LAYOUT")) {
    const std::string s = e;
    if (s == "mt2" || s == "wt2" || s == "1") o.grouped_layout = s;
  }
  o.grouped_keys = env_int("ATTNLAB_GROUPED_KEYS");
  o.grouped_wgs = env_int("ATTNLAB_GROUPED_WGS");
  o.grouped_combine = env_int("ATTNLAB_GROUPED_COMBINE");
  o.grouped_probe = env_int("ATTNLAB_GROUPED_PROBE");
  o.grouped_ticket = env_int("ATTNLAB_GROUPED_TICKET", 1) != 0;
  o.mla_version = env_int("ATTNLAB_MLA_VERSION");
  o.mla_packed_stages = env_int("ATTNLAB_MLA_PACKED_STAGES");
  o.mla_probe = env_int("ATTNLAB_MLA_PROBE");
  o.pdl = env_int("ATTNLAB_PDL", 1) != 0;
  o.cpu_probe_mib = env_int("ATTNLAB_CPU_PROBE_MIB");
  return o;
}

}  // namespace kern
