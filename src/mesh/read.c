// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshRead: a mesh file read by the reader its extension names. */
#include <string.h>
#include <strings.h>
#include "mfadread.h"

PetscErrorCode MfadMeshRead(const char path[], MfadMesh *mesh)
{
  const char *slash, *dot;

  PetscFunctionBegin;
  MfadValidPointer(path, 1);
  MfadValidPointer(mesh, 2);
  slash = strrchr(path, '/');
  dot   = strrchr(slash ? slash : path, '.');
  PetscCheck(dot, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: a mesh file name needs an extension (.obj, .off, .node, .ele, .msh or .mesh)", path);
  if (!strcasecmp(dot, ".obj")) PetscCall(MfadMeshReadOBJ(path, mesh));
  else if (!strcasecmp(dot, ".off")) PetscCall(MfadMeshReadOFF(path, mesh));
  else if (!strcasecmp(dot, ".node") || !strcasecmp(dot, ".ele")) PetscCall(MfadMeshReadTetGen(path, mesh));
  else if (!strcasecmp(dot, ".msh") || !strcasecmp(dot, ".msh2") || !strcasecmp(dot, ".msh4")) PetscCall(MfadMeshReadGmsh(path, mesh)); /* PETSc's names too */
  else if (!strcasecmp(dot, ".mesh")) PetscCall(MfadMeshReadMedit(path, mesh));
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s: unknown mesh file extension '%s' (mfad reads .obj, .off, .node, .ele, .msh and .mesh; PLY files through DMPlex)", path, dot);
  PetscFunctionReturn(PETSC_SUCCESS);
}
