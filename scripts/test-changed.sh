#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The fast local check: builds ./build incrementally (objects cached, scripts/ccache.sh), only the
# programs of the tests it runs, and runs the tests that check the files changed since the last
# landed main (committed or not, untracked included), with the unit label always:
# tests/ci_tests.py `changed` says which (the area's labels, the tests defined in or running a
# changed file, the examples built from it). The full `.ci/run` stays the gate.
# Extra arguments go to ctest.
# The base: MFAD_BASE if set, else origin/main or the branch's upstream where there is one, else
# the commit this branch was created from in this checkout (its reflog's first entry: what had
# landed when the checkout was made).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${MFAD_BUILD_DIR:-$root/build}
export MFAD_BUILD_DIR=$build

base=${MFAD_BASE:-}
if [ -z "$base" ]; then
  for ref in origin/main '@{upstream}'; do
    if git rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1; then
      base=$(git merge-base HEAD "$ref")
      break
    fi
  done
fi
if [ -z "$base" ]; then
  branch=$(git symbolic-ref -q --short HEAD || echo HEAD)
  base=$(git reflog show --format=%H "$branch" -- 2>/dev/null | tail -n 1)
  [ -n "$base" ] || base=HEAD
fi
mapfile -t files < <({ git diff --name-only "$base" --; git ls-files --others --exclude-standard; } | sort -u)
echo "test-changed: ${#files[@]} files changed since $(git rev-parse --short "$base")${files[*]:+: ${files[*]}}"

bash "$root/scripts/setup.sh"
# configure (or re-configure) first: the selection reads ctest's list of this build
# shellcheck source=scripts/ccache.sh
. "$root/scripts/ccache.sh"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${MFAD_CMAKE_ARGS:-} >/dev/null
regex=$(python3 "$root/tests/ci_tests.py" changed "$build" "${files[@]}")
MFAD_TEST_REGEX=$regex bash "$root/scripts/test.sh" -R "$regex" "$@"
