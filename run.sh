#!/usr/bin/env bash
# attnlab: install what is missing, build, and open the explorer. Arguments go to attnlab.
set -euo pipefail
cd "$(dirname "$0")"
tools/deps.sh
tools/configure.sh
exec build/attnlab "$@"
