// SPDX-License-Identifier: BSD-2-Clause
/* Block colouring: blocks of consecutive elements, greedily coloured so that no two blocks of a
   colour share a vertex. Colouring single elements destroys locality (half the single-thread
   HVP speed on 3M tets, DESIGN.md); blocks keep it and still give each thread its own vertices.
   The result depends only on the mesh and the block size, never on the thread count. */
#include "mfadimpl.h"
#include <stdint.h>

PetscErrorCode MfadColourBlocks_Private(PetscInt nelem, int nvert, const int conn[], PetscInt nvertices, PetscInt block_size, int *nblocks, int **block_start, int *ncolors,
                                        int **color_start, int **color_blocks)
{
  /* in 64 bits: with a 32-bit PetscInt, nelem + block_size - 1 wraps negative for a block size
     near 2^31 (-mfad_block_size 2147483000), which made no block, coloured no element and left
     every term 0; any block size >= 1 is usable (one larger than nelem is one block) */
  const PetscInt64 bs = block_size;
  int              nb = (int)(((PetscInt64)nelem + bs - 1) / bs), nw = 1, nc = 0;
  uint64_t        *mask, forbid[64];
  int             *colour, *count;

  PetscFunctionBegin;
  PetscCheck(block_size >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "block colouring: block size %" PetscInt_FMT " must be >= 1 (-mfad_block_size)", block_size);
  PetscCall(PetscMalloc1(nb + 1, block_start));
  for (int b = 0; b <= nb; b++) (*block_start)[b] = (int)PetscMin((PetscInt64)b * bs, (PetscInt64)nelem);
  PetscCall(PetscMalloc1(nb, &colour));
  PetscCall(PetscCalloc1((size_t)nvertices * nw, &mask));
  for (int b = 0; b < nb; b++) {
    int c = -1;
    for (;;) { /* lowest colour not used by a block sharing a vertex; widen the masks if all are */
      for (int w = 0; w < nw; w++) forbid[w] = 0;
      for (PetscInt i = (PetscInt)(*block_start)[b] * nvert; i < (PetscInt)(*block_start)[b + 1] * nvert; i++)
        for (int w = 0; w < nw; w++) forbid[w] |= mask[(size_t)conn[i] * nw + w];
      for (int w = 0; w < nw && c < 0; w++)
        if (~forbid[w]) c = 64 * w + __builtin_ctzll(~forbid[w]);
      if (c >= 0) break;
      PetscCheck(nw < 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "block colouring needs more than %d colours: use a smaller -mfad_block_size", 64 * nw);
      {
        uint64_t *wider;
        PetscCall(PetscCalloc1((size_t)nvertices * 2 * nw, &wider));
        for (PetscInt v = 0; v < nvertices; v++)
          for (int w = 0; w < nw; w++) wider[(size_t)v * 2 * nw + w] = mask[(size_t)v * nw + w];
        PetscCall(PetscFree(mask));
        mask = wider;
        nw *= 2;
      }
    }
    colour[b] = c;
    nc        = PetscMax(nc, c + 1);
    for (PetscInt i = (PetscInt)(*block_start)[b] * nvert; i < (PetscInt)(*block_start)[b + 1] * nvert; i++) mask[(size_t)conn[i] * nw + c / 64] |= (uint64_t)1 << (c % 64);
  }
  PetscCall(PetscFree(mask));
  /* blocks grouped by colour, in block order within a colour */
  PetscCall(PetscCalloc1(nc + 1, color_start));
  PetscCall(PetscMalloc1(nb, color_blocks));
  PetscCall(PetscCalloc1(nc + 1, &count));
  for (int b = 0; b < nb; b++) (*color_start)[colour[b] + 1]++;
  for (int c = 0; c < nc; c++) (*color_start)[c + 1] += (*color_start)[c];
  for (int b = 0; b < nb; b++) (*color_blocks)[(*color_start)[colour[b]] + count[colour[b]]++] = b;
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(colour));
  *nblocks = nb;
  *ncolors = nc;
  PetscFunctionReturn(PETSC_SUCCESS);
}
