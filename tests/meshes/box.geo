// SPDX-License-Identifier: BSD-2-Clause
// Unstructured tets of a 1 x 0.6 x 0.4 box. Regenerate (gmsh 4.8.4, Debian 12):
//   gmsh -3 -format msh41 -o box_tets.msh box.geo
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 0.6, 0.4};
Mesh.CharacteristicLengthMax = 0.12;
Mesh.RandomSeed = 1;
