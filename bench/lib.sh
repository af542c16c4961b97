# Shared helpers for the benchmark scripts: run one simulation and read figures from xsim's run report.
# Source it; needs MPIEXEC (default mpiexec.hydra). report_field NAME LOG prints the report line NAME.
MPIEXEC=${MPIEXEC:-mpiexec.hydra}
report_field() { grep "xsim: $1" "$2" | head -1; }
report_wall() { report_field "simulator wall time" "$1" | awk '{print $5}'; }
report_msgs() { report_field "messages  " "$1" | awk '{print $3}'; }
report_cpu() { report_field "simulation CPU time" "$1" | awk '{print $5}'; }
report_switches() { report_field "context switches" "$1" | awk '{print $4}'; }
report_kib() { report_field "peak memory" "$1" | sed 's/.* \([0-9.]*\) KiB per virtual rank/\1/'; }
# ratio A B [scale]: A / B * scale, 0 when B is 0
ratio() { awk -v a="$1" -v b="$2" -v s="${3:-1}" 'BEGIN{ if (b > 0) printf "%.4g", a / b * s; else print 0 }'; }
