# SPDX-License-Identifier: BSD-2-Clause
# Writes sphere_tris.ply (binary little-endian PLY, the type names PETSc 3.18-3.26 read: float32,
# uint8, int32) from sphere_tris.msh (Gmsh 4.1 ASCII):
#   python3 sphere_to_ply.py
import struct

lines = open("sphere_tris.msh").read().split("\n")
i = lines.index("$Nodes") + 1
nblocks = int(lines[i].split()[0]); i += 1
tags, xyz = [], []
for _ in range(nblocks):
    n = int(lines[i].split()[3]); i += 1
    tags += [int(t) for t in lines[i:i + n]]; i += n
    xyz += [tuple(map(float, l.split())) for l in lines[i:i + n]]; i += n
index = {t: k for k, t in enumerate(tags)}
i = lines.index("$Elements") + 1
nblocks = int(lines[i].split()[0]); i += 1
tris = []
for _ in range(nblocks):
    dim, _, typ, n = map(int, lines[i].split()); i += 1
    if typ == 2:
        tris += [tuple(index[int(t)] for t in l.split()[1:]) for l in lines[i:i + n]]
    i += n
head = ("ply\nformat binary_little_endian 1.0\ncomment from sphere_tris.msh by sphere_to_ply.py\n"
        f"element vertex {len(xyz)}\nproperty float32 x\nproperty float32 y\nproperty float32 z\n"
        f"element face {len(tris)}\nproperty list uint8 int32 vertex_indices\nend_header\n")
with open("sphere_tris.ply", "wb") as f:
    f.write(head.encode())
    for p in xyz:
        f.write(struct.pack("<3f", *p))
    for t in tris:
        f.write(struct.pack("<B3i", 3, *t))
