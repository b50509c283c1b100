#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The core's private header (src/core/internal.h) is included by src/core
# alone: every other file of src/ reaches the core through its public
# headers. (The core's own unit tests, fuzzers and benchmarks look inside
# it on purpose: tests/ is not checked.)
# TAP, one test. $1: the source tree (default: where this script is, ..).
top=${1:-${TESTS_SRCDIR:-$(dirname "$0")}/..}
echo "1..1"
found=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"](core/)?internal\.h[">]' \
	--include='*.c' --include='*.h' "$top/src" 2>/dev/null |
	grep -v "^$top/src/core/")
if [ -z "$found" ]; then
	echo "ok 1 core/internal.h is included in src/ by src/core alone"
else
	echo "not ok 1 core/internal.h is included outside src/core:"
	echo "$found" | sed 's/^/# /'
fi
