#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-debug-tests.sh: the debug tier on its own.  Builds the debug kernel
# first if needed (scripts/build-debug-kernel.sh, cached), then runs the
# whole suite plus tests/debug/ in one VM and ends, like run-tests.sh,
# with "N passed, N failed[, N skipped]".
#
#   TESTS="00-smoke.sh ..."   which tests/ areas (default: all)
#   DEBUG_TESTS="faults.sh"   which tests/debug/ areas (default: all)
#   DEBUG_VM_TIMEOUT, DEBUG_AREA_TIMEOUT: see scripts/debug-tier.sh
. "$(dirname "$0")/lib.sh"
. "$SBD_ROOT/scripts/debug-tier.sh"
need_root
debug_tier_env
TESTS=$(debug_tier_tests)
export TESTS KERNELS=debug STAGES=""
exec "$SBD_ROOT/scripts/run-tests.sh"
