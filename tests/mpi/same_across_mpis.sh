#!/usr/bin/env bash
# The native MPI must not change the simulated result: runs the same programs with the same options under
# xsim built for MPICH (MPICH_BUILD) and for Open MPI (OPENMPI_BUILD), 2 native processes each, and compares
# stdout (the programs' virtual times) and the run report (simulated time, per-rank times, messages, bytes,
# windows) line by line; only host-dependent report lines (wall time, rates, memory) are left out. Programs
# that print MPI constants (p2p_semantics, topology: MPI_PROC_NULL, error classes) are not in the list.
# Usage: same_across_mpis.sh MPICH_BUILD OPENMPI_BUILD
set -u
mpich=$1 ompi=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
keep() { grep -Ev 'wall time|CPU time|per second|peak memory|stack touched|private globals|images in use' "$1" | sort; }
fail=0 n=0
while read -r prog args; do
  [ -z "$prog" ] && continue
  for side in mpich ompi; do
    if [ $side = mpich ]; then dir=$mpich launch=(mpiexec.hydra -np 2); else dir=$ompi launch=(mpirun.openmpi -np 2); fi
    # shellcheck disable=SC2086
    timeout 300 "${launch[@]}" "$dir/$prog" $args -xsim-cpu none < /dev/null > "$tmp/$side.out" 2> "$tmp/$side.err"
    echo "rc $?" >> "$tmp/$side.out"
    keep "$tmp/$side.out" > "$tmp/$side.o"; grep '^xsim: ' "$tmp/$side.err" | keep /dev/stdin > "$tmp/$side.r"
  done
  n=$((n + 1))
  if ! diff -u "$tmp/mpich.o" "$tmp/ompi.o" > "$tmp/d" || ! diff -u "$tmp/mpich.r" "$tmp/ompi.r" >> "$tmp/d"; then
    echo "FAIL: $prog $args differs between MPICH and Open MPI:"; cat "$tmp/d"; tail -5 "$tmp/ompi.err"; fail=1
  else
    echo "same: $prog $args ($(grep -c . "$tmp/mpich.o") output lines, $(grep -c . "$tmp/mpich.r") report lines)"
  fi
done <<'LIST'
examples/hello -xsim-np 37
examples/ring 20 -xsim-np 37
examples/random 20 7 -xsim-np 37
examples/pingpong 65536 4 -xsim-np 3
examples/allreduce 3000 3 -xsim-np 37
examples/stencil 40 5 -xsim-np 30
examples/cg 10 10 10 300 1e-9 -xsim-np 37
examples/ring 100 -xsim-np 512 -xsim-mn torus:8x8x8:lat=1us:bw=10Gbps
tests/mpi/comm_semantics -xsim-np 16
tests/mpi/nonblocking -xsim-np 13
tests/mpi/intercomm -xsim-np 13
tests/mpi/mpiio all -xsim-np 8
tests/mpi/rma all -xsim-np 8
tests/mpi/rma all -xsim-np 7 -xsim-mn star/star:4
LIST
[ $fail -eq 0 ] && echo "same_across_mpis: $n programs, identical virtual times and reports under MPICH and Open MPI"
exit $fail
