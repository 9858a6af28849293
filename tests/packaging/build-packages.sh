#!/bin/bash
# The packages and roots of the package tests (common.sh's
# build_packages), for ensure_packages to run under its lock.
set -euo pipefail
here=$(dirname "$(realpath "$0")")
# shellcheck source=../lib.sh
. "$here/../lib.sh"
# shellcheck source=common.sh
. "$here/common.sh"

build_packages
