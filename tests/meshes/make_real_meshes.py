#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes the irregular test meshes derived from spot.obj (Keenan Crane's Spot, CC0; see
README.md here). Plain python3, no packages; deterministic. Run from tests/meshes:
  spot_patch.obj   a disk cut from Spot: the faces within a graph distance of a vertex on its flank
                   (real modelled triangles: valence 4-8, non-Delaunay edges);
  spot_jitter.obj  the same patch with its interior vertices moved at random in their tangent
                   plane and a fifth of its interior edges flipped: slivers, valence 3-10,
                   many negative cotangent weights (what scanned meshes give);
  sock.obj         a generated disk that flattens badly: a tube 16 times its radius long, closed at
                   one end by a hemisphere, jittered as spot_jitter.obj. Tutte's map squeezes its
                   closed end e^-16-fold, so unfolding it takes hundreds of Newton steps (a scanned
                   surface cut open at a small hole does the same).
"""
import math
import random


def read_obj(path):
    V, F = [], []
    for line in open(path):
        s = line.split()
        if not s:
            continue
        if s[0] == "v":
            V.append([float(t) for t in s[1:4]])
        elif s[0] == "f":
            F.append([int(t.split("/")[0]) - 1 for t in s[1:4]])
    return V, F


def write_obj(path, V, F, comment):
    with open(path, "w") as f:
        f.write("# %s\n" % comment)
        for v in V:
            f.write("v %.6g %.6g %.6g\n" % tuple(v))
        for t in F:
            f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def edges_of(F):
    E = {}
    for fi, t in enumerate(F):
        for k in range(3):
            e = (min(t[k], t[(k + 1) % 3]), max(t[k], t[(k + 1) % 3]))
            E.setdefault(e, []).append(fi)
    return E


def is_disk(F):
    E = edges_of(F)
    if any(len(f) > 2 for f in E.values()):
        return False
    verts = {v for t in F for v in t}
    bnd = [e for e, f in E.items() if len(f) == 1]
    nxt = {}
    for e in bnd:
        for v in e:
            nxt.setdefault(v, []).append(e)
    if any(len(l) != 2 for l in nxt.values()):
        return False  # a pinched boundary vertex
    # one loop
    start = bnd[0][0]
    seen, v, prev = 0, start, None
    while True:
        a, b = nxt[v]
        e = a if a != prev else b
        prev = e
        v = e[0] if e[1] == v else e[1]
        seen += 1
        if v == start:
            break
    return seen == len(bnd) and len(verts) - len(E) + len(F) == 1


def patch(V, F, seed, rings):
    vf = {}
    for fi, t in enumerate(F):
        for v in t:
            vf.setdefault(v, []).append(fi)
    dist = {seed: 0}
    front = [seed]
    for r in range(rings):
        nf = []
        for v in front:
            for fi in vf[v]:
                for w in F[fi]:
                    if w not in dist:
                        dist[w] = r + 1
                        nf.append(w)
        front = nf
    faces = [t for t in F if all(v in dist and dist[v] < rings for v in t)]
    # renumber
    old = sorted({v for t in faces for v in t})
    new = {o: i for i, o in enumerate(old)}
    return [V[o] for o in old], [[new[v] for v in t] for t in faces]


def jitter(V, F, rng):
    V = [list(v) for v in V]
    F = [list(t) for t in F]
    E = edges_of(F)
    bverts = {v for e, f in E.items() if len(f) == 1 for v in e}
    # mean edge length
    h = sum(math.dist(V[a], V[b]) for a, b in E) / len(E)
    # vertex normals
    N = [[0.0, 0.0, 0.0] for _ in V]
    for t in F:
        n = cross(sub(V[t[1]], V[t[0]]), sub(V[t[2]], V[t[0]]))
        for v in t:
            N[v] = [N[v][k] + n[k] for k in range(3)]
    for v in range(len(V)):
        if v in bverts:
            continue
        n = N[v]
        ln = math.sqrt(dot(n, n))
        n = [c / ln for c in n]
        d = [rng.uniform(-1, 1) for _ in range(3)]
        d = [d[k] - dot(d, n) * n[k] for k in range(3)]
        V[v] = [V[v][k] + 0.3 * h * d[k] for k in range(3)]
    # flip a fifth of the interior edges (keeping the mesh valid: no duplicate edge, no flip)
    for _ in range(len(E) // 5):
        E = edges_of(F)
        inner = sorted(e for e, f in E.items() if len(f) == 2)
        a, b = rng.choice(inner)
        f0, f1 = E[(a, b)]
        c = [v for v in F[f0] if v not in (a, b)][0]
        d = [v for v in F[f1] if v not in (a, b)][0]
        if (min(c, d), max(c, d)) in E:
            continue
        # orientation of f0 is (a, b, c) cyclically or (b, a, c)
        t0 = F[f0]
        k = t0.index(c)
        p, q = t0[(k + 1) % 3], t0[(k + 2) % 3]  # f0 = (c, p, q), f1 = (d, q, p)
        n0 = cross(sub(V[p], V[c]), sub(V[q], V[c]))
        g0, g1 = [c, p, d], [d, q, c]
        ok = all(dot(cross(sub(V[g[1]], V[g[0]]), sub(V[g[2]], V[g[0]])), n0) > 1e-3 * h * h for g in (g0, g1))
        if ok:
            F[f0], F[f1] = g0, g1
    return V, F


def sock(length, nu):
    """A tube of radius 1 and the given length, nu vertices around, open at z = 0 and closed at
    z = -length by a hemisphere; ring k turned by half a step on odd k."""
    h = 2 * math.pi / nu
    V, rings = [], []
    for k in range(int(round(length / h)) + 1):
        rings.append(list(range(len(V), len(V) + nu)))
        V += [[math.cos(a), math.sin(a), -k * h] for a in (2 * math.pi * (i + 0.5 * (k % 2)) / nu for i in range(nu))]
    ncap = int(round(math.pi / 2 / h))
    for k in range(1, ncap):
        phi = k * math.pi / 2 / ncap
        n = max(3, int(round(nu * math.cos(phi))))
        rings.append(list(range(len(V), len(V) + n)))
        off = 0.5 * (len(rings) % 2)
        V += [[math.cos(phi) * math.cos(a), math.cos(phi) * math.sin(a), -length - math.sin(phi)]
              for a in (2 * math.pi * (i + off) / n for i in range(n))]
    V.append([0.0, 0.0, -length - 1.0])

    def angle(v):
        return math.atan2(V[v][1], V[v][0]) % (2 * math.pi)

    F = []
    for A, B in zip(rings, rings[1:]):  # the band between two rings: advance the one behind
        a, b = sorted(A, key=angle), sorted(B, key=angle)
        i = j = 0
        while i < len(a) or j < len(b):
            ta = angle(a[(i + 1) % len(a)]) + (2 * math.pi if i + 1 >= len(a) else 0)
            tb = angle(b[(j + 1) % len(b)]) + (2 * math.pi if j + 1 >= len(b) else 0)
            if j >= len(b) or (i < len(a) and ta < tb):
                F.append([a[i % len(a)], b[j % len(b)], a[(i + 1) % len(a)]])
                i += 1
            else:
                F.append([a[i % len(a)], b[j % len(b)], b[(j + 1) % len(b)]])
                j += 1
    last = sorted(rings[-1], key=angle)
    F += [[last[i], len(V) - 1, last[(i + 1) % len(last)]] for i in range(len(last))]
    return V, F


if __name__ == "__main__":
    V, F = read_obj("spot.obj")
    # a vertex on the cow's flank (largest x near the middle of the body)
    seed = max(range(len(V)), key=lambda i: V[i][0] - abs(V[i][2] - 0.4) - abs(V[i][1] + 0.15))
    for rings in range(30, 5, -1):
        PV, PF = patch(V, F, seed, rings)
        if is_disk(PF):
            break
    assert is_disk(PF)
    write_obj("spot_patch.obj", PV, PF, "disk patch of Spot (Keenan Crane, CC0), %d rings about vertex %d; tests/meshes/make_real_meshes.py" % (rings, seed + 1))
    JV, JF = jitter(PV, PF, random.Random(13))
    assert is_disk(JF)
    write_obj("spot_jitter.obj", JV, JF, "spot_patch.obj jittered in the tangent plane, 1/5 of the interior edges flipped; tests/meshes/make_real_meshes.py")
    print("spot_patch.obj: %d vertices %d faces (%d rings); spot_jitter.obj: %d vertices %d faces" % (len(PV), len(PF), rings, len(JV), len(JF)))
    SV, SF = sock(16.0, 16)
    assert is_disk(SF)
    SV, SF = jitter(SV, SF, random.Random(13))
    assert is_disk(SF)
    write_obj("sock.obj", SV, SF, "a tube 16 radii long closed by a hemisphere, jittered as spot_jitter.obj; tests/meshes/make_real_meshes.py")
    print("sock.obj: %d vertices %d faces" % (len(SV), len(SF)))
