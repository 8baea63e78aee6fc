# SPDX-License-Identifier: BSD-2-Clause
"""mfad-energy, the plain-C energy translator, as a package: tools/README.md describes the passes
and the modules. The command is tools/mfad-energy (installed as bin/mfad-energy): cli.main."""
