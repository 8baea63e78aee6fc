#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A curved, irregular tet mesh for the tests: TetGen's quality mesh (-pq1.5, surface kept) of
# tests/meshes/spot.obj (Spot, CC0): about 4,200 vertices and 16,600 tets, written as
# <dir>/spot.1.node and .ele. Exit 77 (ctest's skip) without tetgen.
#   make_spot_tets.sh <spot.obj> <dir>
set -eu
command -v tetgen >/dev/null 2>&1 || { echo "tetgen not found (apt-get install tetgen): skipped"; exit 77; }
mkdir -p "$2"
awk '/^v /{v[++nv]=$2" "$3" "$4} /^f /{f[++nf]="3 "($2-1)" "($3-1)" "($4-1)}
     END{print "OFF"; print nv, nf, 0; for(i=1;i<=nv;i++) print v[i]; for(i=1;i<=nf;i++) print f[i]}' "$1" >"$2/spot.off"
cd "$2" && tetgen -pq1.5YQ spot.off
test -s "$2/spot.1.ele"
