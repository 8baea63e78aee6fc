# SPDX-License-Identifier: BSD-2-Clause
"""Plain-C energies compiled on the fly: mfad-energy translates the source, the C compiler mfad was
built with compiles the unit into a shared object, cached by the hash of the translated unit and the
compile command, so that a second run (a notebook cell run again, every rank after the first) only
translates (0.3 s) and loads.

Under MPI one rank of the communicator compiles and the others wait for its result (a broadcast),
then load the file; a rank that does not see it (a cache on a node-local disk) compiles its own.
Each compile writes a temporary name in the cache and renames it into place, so that concurrent
processes (two notebooks, ranks of separate jobs) never load a half-written object."""
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from . import _config


class EnergyError(Exception):
    """A plain-C energy that could not be made into a kernel."""


class TranslationError(EnergyError):
    """mfad-energy refused the source: the message names file:line:column."""


class CompileError(EnergyError):
    """The C compiler refused the translated unit: the message names the user's file:line."""


def cache_dir():
    """$MFAD_PYTHON_CACHE, else $XDG_CACHE_HOME/mfad/python, else ~/.cache/mfad/python."""
    d = os.environ.get("MFAD_PYTHON_CACHE")
    if not d:
        d = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mfad", "python")
    os.makedirs(d, exist_ok=True)
    return d


def _looks_like_source(s):
    return "\n" in s or "{" in s or ";" in s


def _translate(source_or_path, work):
    """Translates into work/energy.c; returns (the unit's text, the kernel's name)."""
    if _looks_like_source(source_or_path):
        # the text, saved under its hash so that messages name a file the user can open
        text = source_or_path
        src = os.path.join(cache_dir(), "energy-%s.c" % hashlib.sha256(text.encode()).hexdigest()[:16])
        if not os.path.exists(src):
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(src), suffix=".c.tmp")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, src)
    else:
        src = os.path.abspath(os.fspath(source_or_path))
        if not os.path.exists(src):
            raise FileNotFoundError("mfad.Kernel.from_c: no energy source %s" % src)
    unit = os.path.join(work, "energy.c")
    # --lanes: the gradient and HVP over SIMD lanes too (and element Hessians without features:
    # ENERGY_CFLAGS' MFAD_LANES_USER), as mfad_add_energy gives a user's energy
    # (compiled in where ENERGY_CFLAGS, mfad's tuning, has 256-bit registers)
    cmd = list(_config.TRANSLATOR) + [src, "-o", unit, "--cpp", _config.CC + " -E", "--lanes"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise TranslationError(p.stdout.strip() or "mfad-energy failed (exit %d): %s" % (p.returncode, " ".join(cmd)))
    with open(unit) as f:
        text = f.read()
    m = re.search(r"^#define MFAD_ENERGY_NAME\s+(\w+)", text, re.M)
    if not m:
        raise TranslationError("mfad-energy's output %s names no kernel (MFAD_ENERGY_NAME)" % unit)
    return text, m.group(1)


def _compile_command(unit, out, launcher=True):
    # MFAD_CC_LAUNCHER: a compiler cache (ccache) before mfad's compiler, as CMake's launcher; not
    # part of the cache key
    pre = shlex.split(os.environ.get("MFAD_CC_LAUNCHER", "")) if launcher else []
    return [*pre, *shlex.split(_config.CC), *_config.ENERGY_CFLAGS, "-fPIC", "-shared", *_config.CFLAGS, "-o", out, unit, *_config.LDFLAGS]


def _build(source_or_path):
    """Translates and (unless cached) compiles; returns (the shared object's path, kernel name)."""
    cache = cache_dir()
    work = tempfile.mkdtemp(prefix="tmp-", dir=cache)
    try:
        text, name = _translate(source_or_path, work)
        # the unit names its own path (MFAD_ENERGY_HEADER): the same energy in another temporary
        # folder is the same unit
        key = hashlib.sha256(text.replace(work, "@WORK@").encode())
        key.update(repr(_compile_command("@", "@", launcher=False)).encode())
        so = os.path.join(cache, "%s-%s.so" % (name, key.hexdigest()[:24]))
        if not os.path.exists(so):
            tmp = os.path.join(work, "energy.so")
            p = subprocess.run(_compile_command(os.path.join(work, "energy.c"), tmp), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if p.returncode != 0:
                raise CompileError(p.stdout.strip())
            os.replace(tmp, so)  # atomic: a reader sees no file or the whole one
        return so, name
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build(source_or_path, comm=None):
    """(path of the shared object, kernel name) of a plain-C energy; collective on comm (an mpi4py
    or petsc4py communicator, default PETSc.COMM_WORLD): rank 0 builds, the others wait."""
    from petsc4py import PETSc
    c = (PETSc.Comm(comm) if comm is not None else PETSc.COMM_WORLD).tompi4py()
    res = None
    if c.rank == 0:
        try:
            res = ("ok",) + _build(source_or_path)
        except EnergyError as e:
            res = (type(e).__name__, str(e))
        except OSError as e:
            res = (type(e).__name__, str(e))
    if c.size > 1:
        res = c.bcast(res, root=0)
    if res[0] == "ok":
        so, name = res[1], res[2]
        if not os.path.exists(so):  # another node's cache
            so, name = _build(source_or_path)
        return so, name
    kinds = {"TranslationError": TranslationError, "CompileError": CompileError, "FileNotFoundError": FileNotFoundError}
    raise kinds.get(res[0], EnergyError)(res[1])
