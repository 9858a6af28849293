#!/bin/bash
# The packages of the package tests, built before those tests run:
# tests/run-all.sh starts this in the background, at the start of a
# suite, and runs the package tests last.  At the lowest priority, it
# takes the CPU time the other tests leave.  The package tests judge the
# result: their ensure_packages waits for this build (the lock in
# common.sh) and builds again whatever it did not make.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

renice -n 19 -p "$$" >/dev/null
ensure_packages
