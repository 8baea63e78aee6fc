// SPDX-License-Identifier: BSD-2-Clause
// Unstructured triangles of the unit sphere's surface (closed, consistently oriented).
// Regenerate (gmsh 4.8.4, Debian 12):  gmsh -2 -format msh41 -o sphere_tris.msh sphere.geo
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Physical Surface(1) = {1};
Mesh.CharacteristicLengthMax = 0.3;
Mesh.RandomSeed = 1;
