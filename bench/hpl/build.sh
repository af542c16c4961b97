#!/usr/bin/env bash
# Builds netlib HPL 2.3 as a user would: plain `mpicc.mpich`, the system's BLAS through its Fortran
# interface (-lblas: Debian's alternative, reference BLAS or OpenBLAS), no source edits, no xsim.
#   HPL_SRC=/path/to/hpl-2.3 bench/hpl/build.sh [BUILD_DIR]      (default BUILD_DIR: build-hpl)
# HPL_SRC is an unpacked HPL 2.3 source tree (netlib's hpl-2.3.tar.gz, or a checkout of the
# icl-utk-edu/hpl repository). The binary lands in BUILD_DIR/bin/xsim/xhpl; the script prints its path.
set -euo pipefail
: "${HPL_SRC:?set HPL_SRC to an unpacked HPL 2.3 source tree}"
[ -f "$HPL_SRC/include/hpl.h" ] || { echo "build.sh: $HPL_SRC has no include/hpl.h: not an HPL source tree" >&2; exit 2; }
BUILD=$(mkdir -p "${1:-build-hpl}" && cd "${1:-build-hpl}" && pwd)
CC=${HPL_CC:-mpicc.mpich}
rsync -a --delete --exclude bin --exclude lib "$HPL_SRC"/ "$BUILD"/ 2>/dev/null || cp -a "$HPL_SRC"/. "$BUILD"/
# The arch file: HPL's own build system reads Make.<arch> from the top directory.
cat > "$BUILD/Make.xsim" <<MAKE
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -sf
MKDIR        = mkdir -p
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = xsim
TOPdir       = $BUILD
INCdir       = \$(TOPdir)/include
BINdir       = \$(TOPdir)/bin/\$(ARCH)
LIBdir       = \$(TOPdir)/lib/\$(ARCH)
HPLlib       = \$(LIBdir)/libhpl.a
LAlib        = ${HPL_BLAS:--lblas}
F2CDEFS      = -DAdd_ -DF77_INTEGER=int -DStringSunStyle
HPL_INCLUDES = -I\$(INCdir) -I\$(INCdir)/\$(ARCH)
HPL_LIBS     = \$(HPLlib) \$(LAlib) -lm
HPL_OPTS     = ${HPL_OPTS:-}
HPL_DEFS     = \$(F2CDEFS) \$(HPL_OPTS) \$(HPL_INCLUDES)
CC           = $CC
CCNOOPT      = \$(HPL_DEFS)
CCFLAGS      = \$(HPL_DEFS) -O3 -fcommon
LINKER       = $CC
LINKFLAGS    = \$(CCFLAGS)
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
MAKE
(cd "$BUILD" && make arch=xsim > build.log 2>&1) || { tail -30 "$BUILD/build.log"; exit 1; }
echo "$BUILD/bin/xsim/xhpl"
