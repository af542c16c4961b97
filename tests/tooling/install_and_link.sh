#!/usr/bin/env bash
# Installs xsim into a scratch prefix and uses it from outside the source tree: an outside C project built
# with find_package(xsim) (imported target xsim::xsim) and with `pkg-config xsim`, both run under mpiexec;
# the installed tools (xsimrun with a program that knows nothing of xsim, xsim-plot, xsim-net), header,
# CMake package and documentation are where they belong.
# Usage: install_and_link.sh BUILD_DIR SOURCE_DIR [MPI]   (MPI: mpich, the default, or openmpi: then the
# names are libxsim-openmpi.so, xsim-openmpi.pc, find_package(xsim-openmpi), and Open MPI's wrappers run)
set -euo pipefail
build=$1 src=$2 mpi=${3:-mpich}
if [ "$mpi" = openmpi ]; then
  libname=libxsim-openmpi.so pkg=xsim-openmpi mpicc=$(command -v mpicc.openmpi)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
  launch=mpirun.openmpi
else
  libname=libxsim.so pkg=xsim mpicc=$(command -v mpicc.mpich || command -v mpicc)
  launch=mpiexec.hydra
fi
prefix=$(mktemp -d); trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
libdir=$(cd "$prefix" && dirname "$(find . -name "$libname" | head -1)")
[ -n "$libdir" ] || { echo "FAIL: no $libname installed"; exit 1; }
for f in include/xsim.h bin/xsimrun bin/xsim-plot bin/xsim-net "$libdir/cmake/$pkg/${pkg}Config.cmake" \
         "$libdir/cmake/$pkg/${pkg}ConfigVersion.cmake" "$libdir/cmake/$pkg/xsimTargets.cmake" \
         "$libdir/pkgconfig/$pkg.pc" share/doc/xsim/observability.md; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f is not installed"; exit 1; }
done
echo "installed: library in $libdir, header, tools, CMake package, pkg-config file, docs"
# An xsim built with AddressSanitizer (-DXSIM_SANITIZE=address, tests/sanitize/) links libasan, which must be
# the first library of a process: the programs below are built without ASan, so their launches preload it
# (xsimrun does the same by itself).
asan=$(ldd "$prefix/$libdir/$libname" | awk '$1 ~ /^libasan\.so/ && $3 ~ /^\// {print $3; exit}')
asan_env=()
if [ -n "$asan" ]; then
  if [ "$mpi" = openmpi ]; then asan_env=(-x "LD_PRELOAD=$asan"); else asan_env=(-env LD_PRELOAD "$asan"); fi
  echo "the library was built with AddressSanitizer: programs run with $asan preloaded"
fi

mkdir -p "$prefix/outside"
cat > "$prefix/outside/outside.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <xsim.h>
int main(int argc, char** argv) {
  int rank, size, simulated, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  simulated = xsim_is_simulated();
  MPI_Reduce(&simulated, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("outside: %d ranks, %d simulated, xsim %s\n", size, sum, xsim_version());
  MPI_Finalize();
  return 0;
}
C
cat > "$prefix/outside/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(outside C)
find_package(@PKG@ 0.1 REQUIRED)
add_executable(outside outside.c)
target_link_libraries(outside PRIVATE xsim::xsim)
message(STATUS "xsimrun: ${xsim_XSIMRUN}")
CM
sed -i "s/@PKG@/$pkg/" "$prefix/outside/CMakeLists.txt"
# 1. find_package(xsim)
cmake -S "$prefix/outside" -B "$prefix/outside/build" -DCMAKE_PREFIX_PATH="$prefix" > "$prefix/cmake.log" 2>&1 ||
  { cat "$prefix/cmake.log"; echo "FAIL: find_package(xsim)"; exit 1; }
grep -q "xsimrun: $prefix/bin/xsimrun" "$prefix/cmake.log" || { cat "$prefix/cmake.log"; echo "FAIL: xsim_XSIMRUN"; exit 1; }
cmake --build "$prefix/outside/build" > /dev/null
readelf -d "$prefix/outside/build/outside" | grep -q "NEEDED.*${libname//./\\.}" || { echo "FAIL: not linked with $libname"; exit 1; }
out=$($launch -np 2 "${asan_env[@]}" "$prefix/outside/build/outside" -xsim-np 12 -xsim-cpu none -xsim-report off)
echo "find_package: $out"
grep -q "^outside: 12 ranks, 12 simulated, xsim 0\.1\.0$" <<< "$out"
# 2. pkg-config xsim
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
"$mpicc" "$src/examples/hello.c" -o "$prefix/hello" $(pkg-config --cflags --libs $pkg)
out=$($launch -np 1 "${asan_env[@]}" "$prefix/hello" -xsim-np 10 -xsim-cpu none -xsim-report off)
echo "pkg-config: $out"
grep -q "hello: 10 ranks, rank sum 45 ok" <<< "$out"
# 3. the installed launcher preloads the installed library into a program built without xsim
"$mpicc" "$src/examples/hello.c" -o "$prefix/hello_plain"
out=$("$prefix/bin/xsimrun" -np 2 --vp 20 --cpu none --report off "$prefix/hello_plain")
echo "xsimrun: $out"
grep -q "hello: 20 ranks, rank sum 190 ok" <<< "$out"
help=$("$prefix/bin/xsimrun" --help)
grep -q -- "-xsim-trace FILE" <<< "$help" || { echo "FAIL: installed xsimrun --help"; exit 1; }
"$prefix/bin/xsim-plot" --help > /dev/null || { echo "FAIL: installed xsim-plot"; exit 1; }
[ "$("$prefix/bin/xsim-net" --mn torus:4x4x4 hops 0 63)" = 3 ] || { echo "FAIL: installed xsim-net"; exit 1; }
echo "install_and_link: ok"
