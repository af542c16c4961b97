#!/usr/bin/env bash
# Writes an HPL.dat for one run: bench/hpl/hpl_dat.sh N NB P Q [DIR] (default DIR: .).
# One problem size, one block size, one P x Q grid; the rest is HPL's usual choice for a cluster run:
# right-looking recursive panel factorization (Crout, 2 panels of 4 columns), 1-ring-modified broadcast,
# lookahead depth 1, mixed swapping with threshold 64, L1 and U stored transposed, no equilibration.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: hpl_dat.sh N NB P Q [DIR]" >&2; exit 2; }
N=$1 NB=$2 P=$3 Q=$4 DIR=${5:-.}
cat > "$DIR/HPL.dat" <<DAT
HPLinpack benchmark input file
xsim bench/hpl
HPL.out      output file name (if any)
6            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$N           Ns
1            # of NBs
$NB          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$P           Ps
$Q           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
DAT
