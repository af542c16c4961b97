#!/usr/bin/env bash
# Installs xsim into a scratch prefix, builds an outside program with `pkg-config xsim` and runs it.
# Usage: install_and_link.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d); trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
mpicc=$(command -v mpicc.mpich || command -v mpicc)
"$mpicc" "$src/examples/hello.c" -o "$prefix/hello" $(pkg-config --cflags --libs xsim)
out=$(mpiexec.hydra -np 1 "$prefix/hello" -xsim-np 10 -xsim-cpu none -xsim-report off)
echo "$out"
grep -q "hello: 10 ranks, rank sum 45 ok" <<< "$out"
