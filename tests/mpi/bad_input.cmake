# The bad-input table: one test per mistake a user can make, each ending with a clear message and the
# documented exit code (docs/errors.md lists the codes and these cases; README.md "Exit codes").
# Included from tests/mpi/CMakeLists.txt (RUN, EX, NONE and xsim_mpi_test come from there).
#
# Rows, one call each:
#   bad_input(NAME N CODE REGEX ARGS...)  runs ARGS under mpiexec -np N: exit code CODE, stderr matches REGEX
#   bad_toml(NAME CODE REGEX TOML)        writes TOML to <build>/bad_input/NAME.toml and runs the exit_codes
#                                         program with -xsim-config on it (the REGEX sees the file name)
#   bad_call(NAME N MODE RETURN_REGEX FATAL_CODE FATAL_REGEX)
#                                         tests/mpi/errors/bad_calls.c MODE twice: with MPI_ERRORS_RETURN (exit 0,
#                                         stdout matches RETURN_REGEX: the code came back and the program went
#                                         on) and with MPI_ERRORS_ARE_FATAL (exit FATAL_CODE, stderr matches
#                                         FATAL_REGEX: the run ended naming the rank and the call).
#   bad_call_end(NAME N MODE CODE REGEX)  bad_calls MODE where no error code can come back (the run ends).
# A REGEX must not contain ';' (CMake would split it into two arguments): write '.' instead.
# Test names: bad_input_NAME, bad_toml_NAME, bad_call_NAME_return / _fatal, bad_call_NAME.
# Exit codes (docs/errors.md): 2 bad input or configuration (before the run starts), 3 deadlock, 1 an MPI
# error under MPI_ERRORS_ARE_FATAL or a limit reached during the run, MPI_Abort's code, the application's code.

add_executable(bad_calls errors/bad_calls.c)
target_link_libraries(bad_calls PRIVATE xsim MPI::MPI_C)
set(BAD_OK $<TARGET_FILE:exit_codes> ok)           # a program that runs fine when the options are fine
set(BAD_CALLS $<TARGET_FILE:bad_calls>)
set(BAD_TOML_DIR ${CMAKE_CURRENT_BINARY_DIR}/bad_input)

function(bad_input name n code regex)
  xsim_mpi_test(bad_input_${name} ${RUN} expect-fail ${n} ${code} "${regex}" -- ${ARGN})
endfunction()

function(bad_toml name code regex toml)
  file(WRITE ${BAD_TOML_DIR}/${name}.toml "${toml}")
  xsim_mpi_test(bad_toml_${name} ${RUN} expect-fail 1 ${code} "${regex}" --
    ${BAD_OK} -xsim-config ${BAD_TOML_DIR}/${name}.toml)
endfunction()

function(bad_call name n mode return_regex fatal_code fatal_regex)
  xsim_mpi_test(bad_call_${name}_return ${RUN} expect-stdout ${n} "${return_regex}" --
    ${BAD_CALLS} ${mode} return -xsim-np 4 ${NONE})
  xsim_mpi_test(bad_call_${name}_fatal ${RUN} expect-fail ${n} ${fatal_code} "${fatal_regex}" --
    ${BAD_CALLS} ${mode} fatal -xsim-np 4 ${NONE})
endfunction()

function(bad_call_end name n mode code regex)
  xsim_mpi_test(bad_call_${name} ${RUN} expect-fail ${n} ${code} "${regex}" -- ${BAD_CALLS} ${mode} fatal ${ARGN})
endfunction()

# --- command line and environment: exit code 2 before the run starts -------------------------------------------
bad_input(unknown_option 1 2 "unknown option -xsim-nq. did you mean -xsim-np\\?" ${BAD_OK} -xsim-nq 4)
bad_input(sharing_unknown 1 2 "-xsim-sharing: unknown link sharing \"fiar\". give serial, fair or rtt.*did you mean fair"
  ${BAD_OK} -xsim-sharing fiar)
bad_input(sharing_needs_links 1 2 "-xsim-sharing fair: shares the links of -xsim-contention links" ${BAD_OK} -xsim-sharing fair)
# Adaptive routing (docs/network-model.md "Adaptive routing"): an unknown routing, a routing on a topology
# that has none, adaptive routing without the links model, with fair sharing, or inside a node.
set(BAD_DF dragonfly:p=1:a=2:h=1:g=3)
bad_input(routing_unknown 1 2 "-xsim-mn: bad network spec .*unknown dragonfly routing \"ugal\". give minimal \\(min\\), valiant \\(val\\), ugal-l or ugal-g"
  ${BAD_OK} -xsim-mn ${BAD_DF}:routing=ugal)
bad_input(routing_unknown_fattree 1 2 "-xsim-mn: bad network spec .*unknown fat tree routing \"ugal-g\". give minimal .* or adaptive"
  ${BAD_OK} -xsim-mn fattree:m=4:n=2:routing=ugal-g)
bad_input(routing_on_torus 1 2 "key \"routing\" does not apply to a torus level" ${BAD_OK} -xsim-mn torus:4x4:routing=adaptive)
bad_input(routing_needs_links 1 2 "-xsim-mn: routing=ugal-g \\(dragonfly, level 1\\): adaptive routing .*give -xsim-contention links"
  ${BAD_OK} -xsim-np 6 -xsim-mn ${BAD_DF}:routing=ugal-g)
bad_input(routing_needs_serial 1 2 "-xsim-mn: routing=adaptive \\(fattree, level 1\\): adaptive routing reads the queues of -xsim-sharing serial"
  ${BAD_OK} -xsim-np 8 -xsim-mn fattree:m=4:n=2:routing=adaptive -xsim-contention links -xsim-sharing fair)
bad_input(routing_inside_node 1 2 "-xsim-mn: routing=adaptive \\(fattree, level 2\\): adaptive routing applies to the system network"
  ${BAD_OK} -xsim-np 16 -xsim-mn star:2/fattree:m=4:n=2:routing=adaptive -xsim-contention links)
bad_input(unknown_option_far 1 2 "unknown option -xsim-frobnicate \\(see -xsim-help" ${BAD_OK} -xsim-frobnicate 1)
bad_input(double_dash 1 2 "xsim options take a single dash, e.g. -xsim-np" ${BAD_OK} --xsim-np 4)
bad_input(missing_value 1 2 "-xsim-np needs a value: -xsim-np M" ${BAD_OK} -xsim-np)
bad_input(missing_value_eq 1 2 "-xsim-stack needs a value after '='" ${BAD_OK} -xsim-stack=)
bad_input(np_not_numeric 1 2 "-xsim-np: \"zero\" is not a positive integer" ${BAD_OK} -xsim-np zero)
bad_input(np_zero 2 2 "-xsim-np: the number of virtual ranks must be between 1 and 2147483647 \\(got 0\\)"
  ${BAD_OK} -xsim-np 0)
bad_input(np_negative 1 2 "-xsim-np: the number of virtual ranks must be between 1 and .*\\(got -4\\)" ${BAD_OK} -xsim-np -4)
bad_input(np_beyond_int 1 2 "-xsim-np: the number of virtual ranks must be between 1 and 2147483647 \\(got 4294967296\\)"
  ${BAD_OK} -xsim-np 4294967296)
bad_input(np_env 1 2 "XSIM_NP: \"4k\" is not a positive integer" env XSIM_NP=4k ${BAD_OK})
bad_input(cpu_scale_not_numeric 1 2 "-xsim-cpu-scale: .*fast" ${BAD_OK} -xsim-cpu-scale fast)
bad_input(cpu_scale_zero 1 2 "-xsim-cpu-scale: .*positive" ${BAD_OK} -xsim-cpu-scale 0)
# the node model (docs/real-programs.md "Node model"): a bad factor, a factor chosen but never measured
bad_input(node_host_unknown 1 2 "-xsim-node-host: unknown node factor \"memroy\". give none, memory, compute or a number" ${BAD_OK} -xsim-node-host memroy)
bad_input(node_host_negative 1 2 "-xsim-node-host: a node factor must be a positive finite number" ${BAD_OK} -xsim-node-host -2)
bad_input(node_host_unmeasured 1 2 "-xsim-node-host memory: the node's memory_factor is not set. measure it with xsim-calibrate --node" ${BAD_OK} -xsim-node-host memory)
bad_input(cpu_model_unknown 1 2 "-xsim-cpu: .*\"scaledd\".*did you mean scaled\\?" ${BAD_OK} -xsim-cpu scaledd)
bad_input(stack_bad_unit 1 2 "-xsim-stack: .*\"256Q\"" ${BAD_OK} -xsim-stack 256Q)
# memory folding: a size that does not parse, one too small to fold, the environment twin, the TOML key
bad_input(fold_bad_unit 1 2 "-xsim-fold: .*\"12Q\".*e\\.g\\. 1M" ${BAD_OK} -xsim-fold 12Q)
bad_input(fold_too_small 1 2 "-xsim-fold: fold size 4 KiB is too small. give at least 64K" ${BAD_OK} -xsim-fold 4K)
bad_input(fold_env 1 2 "XSIM_FOLD: .*\"lots\"" env XSIM_FOLD=lots ${BAD_OK})
bad_input(fold_bad_backing 1 2 "-xsim-fold: unknown fold backing \"mirror\". give SIZE, SIZE:private" ${BAD_OK} -xsim-fold 1M:mirror)
bad_input(poll_cost_bad_unit 1 2 "-xsim-poll-cost: .*\"5 parsecs\"" ${BAD_OK} "-xsim-poll-cost=5 parsecs")
bad_input(io_bw_zero 1 2 "-xsim-io-bw: .*" ${BAD_OK} -xsim-io-bw 0GB/s)
bad_input(report_not_bool 1 2 "-xsim-report: \"maybe\" is not auto, on or off|-xsim-report: .*maybe" ${BAD_OK} -xsim-report maybe)
bad_input(missing_config 1 2 "nonexistent\\.toml" ${BAD_OK} -xsim-config nonexistent.toml)
# networks: unknown names, bad sizes and units, latencies that cannot be, sizes that do not fit
bad_input(net_unknown_preset 1 2 "-xsim-mn: bad network spec \"etherent\": unknown network \"etherent\". known presets: .*did you mean ethernet\\?"
  ${BAD_OK} -xsim-mn etherent)
bad_input(net_unknown_topology 1 2 "known topologies: .*did you mean torus\\?" ${BAD_OK} -xsim-mn tours:4x4)
bad_input(net_negative_latency 1 2 "-xsim-mn: .*-5us" ${BAD_OK} -xsim-mn star:lat=-5us)
bad_input(net_zero_bandwidth 1 2 "-xsim-mn: .*bandwidth.*0" ${BAD_OK} -xsim-mn star:bw=0Gbps)
bad_input(net_bad_latency_unit 1 2 "-xsim-mn: .*25uss" ${BAD_OK} -xsim-mn star:lat=25uss)
bad_input(net_bad_size 1 2 "-xsim-mn: .*4xx4" ${BAD_OK} -xsim-mn torus:4xx4)
bad_input(net_too_small 1 2 "torus:4x4.*16.*100|100.*torus:4x4.*16" ${BAD_OK} -xsim-np 100 -xsim-mn torus:4x4)
bad_input(net_unknown_key 1 2 "-xsim-mn: .*\"latnecy\".*did you mean lat" ${BAD_OK} -xsim-mn star:latnecy=5us)
bad_input(net_latency_too_large 1 2 "-xsim-mn: .*link latency 4000000 s is too large" ${BAD_OK} -xsim-mn star:lat=4000000s)
bad_input(placement_unknown 1 2 "-xsim-placement: .*did you mean roundrobin\\?" ${BAD_OK} -xsim-placement roundrobbin)
# the rank count that cannot fit in memory is refused before the run, with the numbers
bad_input(memory_check_value 1 2 "-xsim-memory-check: expected \"refuse\" or \"warn\", got \"maybe\"" ${BAD_OK} -xsim-memory-check maybe)
bad_input(memory_available_value 1 2 "XSIM_MEMORY_AVAILABLE: " env XSIM_MEMORY_AVAILABLE=lots ${BAD_OK})
bad_input(np_beyond_memory 1 2 "2000000000 virtual ranks do not fit in memory: they need at least [0-9.]+ [KMGTP]iB .*but only [0-9.]+ [KMGTP]iB available"
  ${EX}/hello -xsim-np 2000000000 ${NONE})

# --- TOML files: file:line:column, the key, what was expected; exit code 2 --------------------------------------
bad_toml(syntax 2 "syntax\\.toml:2:[0-9]+: " [=[
[simulation]
np = = 4
]=])
bad_toml(unclosed_table 2 "unclosed_table\\.toml:1:[0-9]+: " [=[
[simulation
np = 4
]=])
bad_toml(unknown_table 2 "unknown_table\\.toml:2:[0-9]+: unknown table \\[netwrok\\].*did you mean network\\?" [=[
# comment line
[netwrok]
preset = "ethernet"
]=])
bad_toml(unknown_key 2 "unknown_key\\.toml:3:[0-9]+: unknown key \"nq\" in \\[simulation\\].*did you mean np\\?" [=[
[simulation]
stack = "256K"
nq = 4
]=])
bad_toml(key_in_wrong_table 2 "key_in_wrong_table\\.toml:2:[0-9]+: .*\"np\".*belongs in \\[simulation\\]" [=[
[network]
np = 4
]=])
bad_toml(fold_string 2 "fold_string\\.toml:2:[0-9]+: .*\"huge\"" [=[
[memory]
fold = "huge"
]=])
bad_toml(np_string 2 "np_string\\.toml:2:[0-9]+: .*np" [=[
[simulation]
np = "many"
]=])
bad_toml(np_zero 2 "np_zero\\.toml:2:[0-9]+: .*between 1 and 2147483647 \\(got 0\\)" [=[
[simulation]
np = 0
]=])
bad_toml(bad_unit 2 "bad_unit\\.toml:3:[0-9]+: .*\"10 lightyears\"" [=[
[network]
preset = "ethernet"
latency = "10 lightyears"
]=])
bad_toml(negative_latency 2 "negative_latency\\.toml:2:[0-9]+: .*-3us" [=[
[network]
latency = "-3us"
]=])
bad_toml(zero_bandwidth 2 "zero_bandwidth\\.toml:2:[0-9]+: .*bandwidth" [=[
[network]
bandwidth = "0Gbps"
]=])
bad_toml(cpu_scale_negative 2 "cpu_scale_negative\\.toml:3:[0-9]+: .*" [=[
[cpu]
model = "scaled"
scale = -2.0
]=])
# kernel models (docs/real-programs.md "Kernel models"): a family, a key or a number that is not there, and
# the model without parameters
bad_toml(kernels_family 2 "kernels_family\\.toml:3:[0-9]+: unknown kernel family \\[kernels\\.gem\\]. the families are gemm, trsm" [=[
[kernels]
peak = "10GF"
[kernels.gem]
efficiency = 0.9
]=])
bad_toml(kernels_key 2 "kernels_key\\.toml:3:1: unknown key \"efficency\" in \\[kernels\\.gemm\\]. known keys: efficiency, half_dim, overhead" [=[
[kernels]
[kernels.gemm]
efficency = 0.9
]=])
bad_toml(kernels_efficiency 2 "kernels_efficiency\\.toml:2:[0-9]+: \\[kernels\\.dot\\] efficiency: an efficiency must be above 0 and at most 2 \\(got -0\\.5\\)" [=[
[kernels.dot]
efficiency = -0.5
]=])
bad_toml(kernels_exec 2 "kernels_exec\\.toml:2:[0-9]+: \\[kernels\\] exec: unknown kernel family \"cpy\". the families are gemm" [=[
[kernels]
exec = ["copy", "cpy"]
]=])
bad_toml(kernels_peak 2 "kernels_peak\\.toml:2:[0-9]+: \\[kernels\\] peak: bad flop rate \"57\\.6GB\"" [=[
[kernels]
peak = "57.6GB"
]=])
bad_input(kernels_model_no_parameters 1 2
  "-xsim-kernels: -xsim-kernels model needs the machine's kernel parameters.*run xsim-calibrate --kernels --out FILE .* pass -xsim-config FILE, or give -xsim-kernel-preset NAME"
  ${BAD_OK} -xsim-kernels model)
bad_input(kernels_unknown_preset 1 2 "XSIM_KERNEL_PRESET: unknown kernel preset \"frontier\". the presets are frontera, pupmaya"
  env XSIM_KERNEL_PRESET=frontier ${BAD_OK})
bad_input(kernels_mode 1 2 "-xsim-kernels: unknown kernel mode \"run\". give exec" ${BAD_OK} -xsim-kernels run)

# --- limits reached during the run: the run ends naming the rank and the call (exit code 1) ---------------------
# virtual time is 64-bit picoseconds (0 to 9.2e6 s, about 106 days): links of 2e6 s (the largest latency
# accepted is a quarter of the range) make each hop of the ring cost 4e6 s, so the third hop cannot be timed
bad_input(time_overflow_latency 1 1
  "rank 0 at virtual time 8000000\\.000000006 s: MPI_Sendrecv: virtual time overflow \\(more than 106 days"
  ${EX}/ring 5 -xsim-np 2 ${NONE} -xsim-mn star:lat=2000000s)

# --- misuse inside the application (tests/mpi/errors/bad_calls.c), under both error handlers -------------------------
# MODE             RETURN: the class that comes back              FATAL: exit code, what the run's end says
bad_call(rank 1 rank "MPI_Send returned MPI_ERR_RANK" 1
  "rank 1 at virtual time [0-9.]+ s: MPI_Send: invalid rank 4 \\(MPI_COMM_WORLD has 4 ranks\\).*MPI_ERRORS_ARE_FATAL")
bad_call(rank_negative 2 rank-negative "MPI_Recv returned MPI_ERR_RANK" 1 "rank 1 .*: MPI_Recv: invalid rank -5")
bad_call(root 1 root "MPI_Bcast returned MPI_ERR_ROOT" 1 "rank 1 .*: MPI_Bcast: .*root 7")
bad_call(tag 2 tag "MPI_Send returned MPI_ERR_TAG" 1 "rank 1 .*: MPI_Send: invalid tag -7")
bad_call(count 1 count "MPI_Send returned MPI_ERR_COUNT" 1 "rank 1 .*: MPI_Send: negative count -3")
bad_call(comm_null 1 comm-null "MPI_Send returned MPI_ERR_COMM" 1 "rank 1 .*: MPI_Send: the communicator is MPI_COMM_NULL")
bad_call(comm_freed 2 comm-freed "MPI_Send returned MPI_ERR_COMM" 1 "rank 1 .*: MPI_Send: invalid communicator handle")
bad_call(type_null 1 type-null "MPI_Send returned MPI_ERR_TYPE" 1 "rank 1 .*: MPI_Send: the datatype is MPI_DATATYPE_NULL")
bad_call(request_freed 2 request-freed "MPI_Wait returned MPI_ERR_REQUEST" 1 "rank 1 .*: MPI_Wait: invalid request handle")
bad_call(request_null_pointer 1 request-null "MPI_Wait returned MPI_ERR_REQUEST" 1
  "rank 1 .*: MPI_Wait: null pointer for the request")
bad_call(isend_null_request 1 isend-null-request "MPI_Isend returned MPI_ERR_REQUEST" 1
  "rank 1 .*: MPI_Isend: null pointer for the request")
bad_call(request_free_null 1 request-free-null "MPI_Request_free returned MPI_ERR_REQUEST" 1
  "rank 1 .*: MPI_Request_free: MPI_Request_free on MPI_REQUEST_NULL")
bad_call(truncate 2 truncate "MPI_Recv returned MPI_ERR_TRUNCATE.*\n.*ok\n.*status source 0 tag 5" 1
  "rank 1 .*: MPI_Recv: .*truncat")
bad_call(finalize_twice 1 finalize-twice "MPI_Finalize returned MPI_ERR_OTHER" 1 "rank 1 .*: MPI_Finalize: MPI_Finalize called twice")
bad_call(after_finalize 2 after-finalize "MPI_Send returned MPI_ERR_OTHER" 1
  "rank 1 .*: MPI_Send: MPI_Send called after MPI_Finalize")
bad_call_end(before_init 1 before-init 1 "rank 0 .*: MPI_Comm_rank: MPI_Comm_rank called before MPI_Init" -xsim-np 4 ${NONE})
# a rank that ends while another waits for it: a deadlock (exit code 3) that names the rank that is gone
bad_call_end(exit_while_waiting 1 exit-while-waiting 3
  "rank 0 .*blocked in MPI_Recv \\(peer 1, tag 77, MPI_COMM_WORLD\\). rank 1 has already ended without calling MPI_Finalize"
  -xsim-np 4 ${NONE})
# ranks 0 and 1 on different native processes: the one that holds rank 1 names it
bad_call_end(exit_while_waiting_2procs 2 exit-while-waiting 3
  "rank 1 ended at virtual time [0-9.]+ s with exit code 0 without calling MPI_Finalize" -xsim-np 2 ${NONE})
# MPI_Abort while the others are blocked ends them all, with its code
bad_call_end(abort_while_blocked 2 abort-while-blocked 4 "MPI_Abort called by rank 1 with error code 4" -xsim-np 4 ${NONE})
# counts x extent beyond 2^31, and a message of more than 2^31 bytes (sizes are 64-bit inside xsim)
xsim_mpi_test(bad_call_big_extent ${RUN} same "1 2" -- ${BAD_CALLS} big-extent return -xsim-np 2 ${NONE})
xsim_mpi_test(bad_call_big_message ${RUN} expect-stdout 1
  "^bad_calls big-message: 2148532224 bytes, count 2049 of 1 MiB, MPI_BYTE count MPI_UNDEFINED, arrival 17\\.188307792$" --
  ${BAD_CALLS} big-message return -xsim-np 2 ${NONE} -xsim-model analytic)
# virtual time beyond its range by modelled compute: xsim_compute or the processor model's scale
xsim_mpi_test(bad_call_time_overflow_compute ${RUN} expect-fail 1 1
  "rank 0 at virtual time 0\\.000000000 s: xsim_compute: virtual time out of range: 20000000\\.000000 s" --
  $<TARGET_FILE:bad_calls> compute-overflow return -xsim-np 2 ${NONE})
xsim_mpi_test(bad_call_time_overflow_cpu_scale ${RUN} expect-fail 1 1
  "rank [01] at virtual time [0-9.]+ s: MPI_[A-Za-z_]+: virtual time overflow: [0-9]+ ns of host time x 1e\\+?10" --
  $<TARGET_FILE:bad_calls> spin return -xsim-np 2 -xsim-cpu scaled -xsim-cpu-scale 1e10)
# the 2 GiB message costs ~2 GiB of memory and seconds of page faults: label "large" (ctest -LE large skips it)
set_tests_properties(bad_call_big_message PROPERTIES LABELS "mpi;large")

# [kernels.symbols]: functions of the program modelled by name (docs/real-programs.md "Functions of the program")
bad_toml(symbols_formula 2
  "symbols_formula\\.toml:3:9: \\[kernels\\.symbols\\.f\\] flops: in the formula \"2 \\*\\* m\", column 4: expected a number, a name, '\\(' or '-', found '\\*'"
  "[kernels.symbols.f]\nargs = [\"m\"]\nflops = \"2 ** m\"\n")
bad_toml(symbols_unknown_arg 2
  "symbols_unknown_arg\\.toml:3:9: \\[kernels\\.symbols\\.f\\] bytes: in the formula \"8 \\* M \\* K\", column 9: unknown name 'K'. the names are the arguments \\(M, N\\)"
  "[kernels.symbols.f]\nargs = [\"M\", \"N\"]\nbytes = \"8 * M * K\"\n")
bad_toml(symbols_arg_type 2 "symbols_arg_type\\.toml:2:9: \\[kernels\\.symbols\\.f\\] args: unknown argument type \"i16\" in \"N:i16\". give i32"
  "[kernels.symbols.f]\nargs = [\"N:i16\"]\n")
bad_toml(symbols_unknown_key 2 "symbols_unknown_key\\.toml:2:1: unknown key \"flop\" in \\[kernels\\.symbols\\.f\\].*did you mean"
  "[kernels.symbols.f]\nflop = \"1\"\n")
bad_toml(symbols_efficiency 2 "\\[kernels\\.symbols\\.f\\] efficiency: efficiency 1\\.5 is out of range"
  "[kernels.symbols.f]\nefficiency = 1.5\n")
bad_toml(symbols_unknown_symbol 2
  "symbols_unknown_symbol\\.toml:5:18: \\[kernels\\.symbols\\.no_such_function\\]: the function no_such_function is not in the program: not in the symbol tables of the executable [^ ]*exit_codes nor"
  "[kernels]\nmode = \"model\"\npeak = \"1GF\"\nbandwidth = \"1GB/s\"\n[kernels.symbols.no_such_function]\nflops = \"1\"\n")
file(WRITE ${BAD_TOML_DIR}/symbols_too_short.toml "[kernels]\npeak = \"1GF\"\nbandwidth = \"1GB/s\"\n[kernels.symbols.sym_tiny]\noverhead = \"1us\"\n")
bad_input(symbols_too_short 1 2 "the function sym_tiny in [^ ]*symbol_models is [0-9]+ bytes long, shorter than the 12-byte jump"
  ${PRELOAD} $<TARGET_FILE:symbol_models> -xsim-kernels model -xsim-config ${BAD_TOML_DIR}/symbols_too_short.toml)

# -xsim-noise, -xsim-node-speed and -xsim-node-drift (docs/noise.md)
bad_input(noise_negative_duration 1 2 "-xsim-noise: the duration: .*must not be negative.*periodic:PERIOD:DURATION" ${BAD_OK} -xsim-noise periodic:1ms:-5us)
bad_input(noise_bad_rate 1 2 "-xsim-noise: the rate: \"fast\" is not a rate. give a number with unit Hz" ${BAD_OK} -xsim-noise poisson:fast:20us)
bad_input(noise_unknown 1 2 "-xsim-noise: unknown noise \"jitter\"" ${BAD_OK} -xsim-noise jitter)
bad_input(noise_fills_period 1 2 "-xsim-noise: the duration .* must be shorter than the period" ${BAD_OK} -xsim-noise periodic:1ms:2ms)
bad_input(noise_trace_missing 1 2 "-xsim-noise: cannot read the noise trace \"/nonexistent/trace.txt\"" ${BAD_OK} -xsim-noise trace:/nonexistent/trace.txt)
bad_input(noise_trace_malformed 1 2 "-xsim-noise: .*bad_trace.txt:3: " ${BAD_OK} -xsim-noise trace:${CMAKE_CURRENT_SOURCE_DIR}/noise/bad_trace.txt)
bad_input(node_speed_bad 1 2 "-xsim-node-speed: \"0.9\" is not a standard deviation between 0 and 0.3" ${BAD_OK} -xsim-node-speed normal:0.9)
bad_input(node_speed_short_file 1 2 "-xsim-node-speed: .*speeds.txt holds 2 node factors, but the run has 4 simulated nodes" ${BAD_OK} -xsim-np 4 -xsim-node-speed file:${CMAKE_CURRENT_SOURCE_DIR}/noise/speeds.txt)
bad_input(node_drift_bad_sigma 1 2 "-xsim-node-drift: \"0.5\" is not a standard deviation between 0 and 0.3.*SIGMA:INTERVAL" ${BAD_OK} -xsim-node-drift 0.5:10ms)
bad_input(node_drift_bad_interval 1 2 "-xsim-node-drift: the interval must be positive" ${BAD_OK} -xsim-node-drift 0.02:0ms)
bad_toml(noise_toml 2 "noise_toml\\.toml:2:[0-9]+: .*poisson takes a rate and a duration" [=[
[noise]
detours = "poisson:1kHz"
]=])
