#!/usr/bin/env python3
"""Generates xsim's own Fortran bindings (mpif.h and `use mpi`) from the C prototypes.

Reads MPICH's mpi.h (its prototypes name every parameter), Open MPI's mpi.h (only functions both MPIs declare
get a binding, so the output compiles against either), the runtime sources (which functions xsim implements)
and the rule tables below, and writes
  fortran/bindings.c : for every MPI function xsim implements, a Fortran entry point in the four manglings
                       gfortran and the MPIs use (mpi_send_, mpi_send, mpi_send__, MPI_SEND) that converts the
                       arguments with the standard C API (MPI_Comm_f2c, MPI_Status_c2f...) and calls the C
                       function; for every function that touches a virtual object and that xsim does not
                       implement, an entry point that stops the run naming the function.
Functions that touch no virtual object (datatype constructors, info objects, MPI_Op_create...) keep the native
MPI's Fortran binding: it calls the native C function, which is what xsim would call too. The few entry
points the rules cannot express (MPI_Init, callbacks, attributes, MPI_Wtime) are written by hand in
fortran/special.c; SPECIAL lists them.

Usage: gen_bindings.py [--check] [MPICH mpi.h] [Open MPI mpi.h]   (--check: fail if bindings.c is stale)
"""
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "libxsim" / "runtime" / "mpi"))
import gen_unsupported  # noqa: E402  (the same parser and the same notion of "virtual object")

MPICH_H = "/usr/include/x86_64-linux-gnu/mpich/mpi.h"
OMPI_H = "/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h"

# Written by hand in special.c (each name there defines these entry points).
SPECIAL = {
    "MPI_Init", "MPI_Init_thread", "MPI_Wtime", "MPI_Wtick", "MPI_Pcontrol",
    "MPI_Comm_create_keyval", "MPI_Comm_get_attr", "MPI_Comm_set_attr", "MPI_Win_get_attr",
    "MPI_Comm_create_errhandler", "MPI_Errhandler_create",
    "MPI_Keyval_create", "MPI_Attr_get", "MPI_Attr_put",
}
# MPI-1 functions Open MPI 4.1 still binds in Fortran but no longer declares in C: their binding calls the
# MPI-2 function of the same signature.
RENAMED = {
    "MPI_Attr_delete": "MPI_Comm_delete_attr",
    "MPI_Keyval_free": "MPI_Comm_free_keyval",
    "MPI_Errhandler_get": "MPI_Comm_get_errhandler",
    "MPI_Errhandler_set": "MPI_Comm_set_errhandler",
}
# The `mpi` module's TYPE(C_PTR) forms of these (Open MPI: mpi_alloc_mem_cptr_...) take the same arguments.
CPTR = {"MPI_Alloc_mem", "MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_shared_query"}
# xsim implements these as plain calls of the native function; the native Fortran binding does the same and
# knows the Fortran conventions of user functions (MPI_Op_create with a Fortran function).
NATIVE = {"MPI_Op_create", "MPI_Op_free", "MPI_Op_commutative"}
# C only: no Fortran binding.
C_ONLY = re.compile(r"_(f2c|c2f|f082c|c2f08|f2f08|f082f)$|^MPI_Status_(f2c|c2f)")

HANDLES = {  # C type -> (f2c/c2f stem, null handle)
    "MPI_Comm": ("MPI_Comm", "MPI_COMM_NULL"), "MPI_Group": ("MPI_Group", "MPI_GROUP_NULL"),
    "MPI_Datatype": ("MPI_Type", "MPI_DATATYPE_NULL"), "MPI_Op": ("MPI_Op", "MPI_OP_NULL"),
    "MPI_Info": ("MPI_Info", "MPI_INFO_NULL"), "MPI_Errhandler": ("MPI_Errhandler", "MPI_ERRHANDLER_NULL"),
    "MPI_Win": ("MPI_Win", "MPI_WIN_NULL"), "MPI_File": ("MPI_File", "MPI_FILE_NULL"),
    "MPI_Request": ("MPI_Request", "MPI_REQUEST_NULL"), "MPIO_Request": ("MPI_Request", "MPI_REQUEST_NULL"),
    "MPI_Message": ("MPI_Message", "MPI_MESSAGE_NULL"),
}
WIDE = {"MPI_Aint": "MPI_Aint", "MPI_Offset": "MPI_Offset", "MPI_Count": "MPI_Count"}
# Handle pointers these functions read and write back (everywhere else a handle pointer is an output).
INOUT = re.compile(r"_free$|^MPI_(File_close|Wait|Test|Start|Cancel|Mrecv|Imrecv|Comm_disconnect|Type_commit)$")
# Choice-buffer parameters whose MPI_BOTTOM/MPI_IN_PLACE must become the C sentinels; other void* parameters
# are addresses the C function writes (baseptr, buffer_addr) and pass through.
RAW_POINTERS = {"baseptr", "buffer_addr"}
# int arrays that may be MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY
WEIGHTS = {"sourceweights", "destweights", "weights"}
# Array lengths (a C expression over the Fortran arguments, which are pointers) for arrays converted element
# by element. "post:" lengths are read after the call (the C function sets them).
COMM_OF = "MPI_Comm_f2c(*comm)"
LENGTHS = {
    ("MPI_Waitall", "array_of_requests"): "*count", ("MPI_Waitall", "array_of_statuses"): "*count",
    ("MPI_Testall", "array_of_requests"): "*count", ("MPI_Testall", "array_of_statuses"): "*count",
    ("MPI_Waitany", "array_of_requests"): "*count", ("MPI_Testany", "array_of_requests"): "*count",
    ("MPI_Startall", "array_of_requests"): "*count",
    ("MPI_Waitsome", "array_of_requests"): "*incount", ("MPI_Testsome", "array_of_requests"): "*incount",
    ("MPI_Waitsome", "array_of_statuses"): "post:xf_some(*outcount)",
    ("MPI_Testsome", "array_of_statuses"): "post:xf_some(*outcount)",
    ("MPI_Waitsome", "array_of_indices"): "post:xf_some(*outcount)",
    ("MPI_Testsome", "array_of_indices"): "post:xf_some(*outcount)",
}
for _f in ("MPI_Alltoallw", "MPI_Ialltoallw"):
    LENGTHS[(_f, "sendtypes")] = LENGTHS[(_f, "recvtypes")] = f"xf_comm_peers({COMM_OF})"
for _f in ("MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw"):
    LENGTHS[(_f, "sendtypes")] = f"xf_neighbors({COMM_OF}, 1)"
    LENGTHS[(_f, "recvtypes")] = f"xf_neighbors({COMM_OF}, 0)"


class Unbindable(Exception):
    pass


def parse_params(args):
    if args.strip() in ("", "void"):
        return []
    out = []
    for a in args.split(","):
        a = a.strip()
        if a == "...":
            raise Unbindable("varargs")
        const = bool(re.search(r"\bconst\b", a))
        a = re.sub(r"\bconst\b", " ", a)
        m = re.match(r"^\s*(\w+)\s*(\**)\s*(\w+)\s*((?:\[\w*\])*)\s*$", a)
        if not m:
            raise Unbindable(f"parameter {a!r}")
        base, stars, name, dims = m.groups()
        out.append({"base": base, "ptr": len(stars) + dims.count("["), "array": bool(dims), "name": name,
                    "const": const})
    return out


def binding(fn, cfn, params):
    """One wrapper: returns the C text. `fn` names the Fortran entry points, `cfn` the C function called."""
    decl, pre, call, post, lens = [], [], [], [], []
    for p in params:
        b, n, k = p["base"], p["name"], p["ptr"]
        key = LENGTHS.get((fn, n))
        if b == "void" and k == 1:
            decl.append(f"void* {n}")
            call.append(n if n in RAW_POINTERS else f"xf_buf({n})")
        elif b == "int" and k == 0:
            decl.append(f"MPI_Fint* {n}")
            call.append(f"(int)*{n}")
        elif b == "int" and k == 1:
            decl.append(f"MPI_Fint* {n}")
            call.append(f"xf_weights({n})" if n in WEIGHTS else n)
            if n == "flag" and not p["const"]:
                post.append(f"if (rc == MPI_SUCCESS) *{n} = xf_logical(*{n});")
            if n == "indx":
                post.append(f"if (rc == MPI_SUCCESS && *{n} >= 0) *{n} += 1;  /* Fortran indices start at 1 */")
            if n == "array_of_indices":
                post.append(f"if (rc == MPI_SUCCESS) for (int i = 0; i < {key[5:]}; ++i) {n}[i] += 1;")
        elif b == "int" and k == 2 and n == "ranges":  # INTEGER RANGES(3, N) is C's int ranges[N][3]
            decl.append(f"MPI_Fint (*{n})[3]")
            call.append(n)
        elif b in WIDE and k <= 1:
            decl.append(f"{WIDE[b]}* {n}")
            call.append(f"*{n}" if k == 0 else n)
        elif b in HANDLES and k == 0:
            stem, _ = HANDLES[b]
            decl.append(f"MPI_Fint* {n}")
            call.append(f"{stem}_f2c(*{n})")
        elif b in HANDLES and k == 1 and not p["array"]:
            stem, null = HANDLES[b]
            ctype = "MPI_Request" if b == "MPIO_Request" else b
            decl.append(f"MPI_Fint* {n}")
            if INOUT.search(fn):
                pre.append(f"{ctype} c_{n} = {stem}_f2c(*{n});")
                post.append(f"*{n} = {stem}_c2f(c_{n});")
            else:
                pre.append(f"{ctype} c_{n} = {null};")
                post.append(f"if (rc == MPI_SUCCESS) *{n} = {stem}_c2f(c_{n});")
            call.append(f"&c_{n}")
        elif b in HANDLES and p["array"]:
            if not key:
                raise Unbindable(f"handle array {n} without a length rule")
            stem, _ = HANDLES[b]
            decl.append(f"MPI_Fint* {n}")
            pre.append(f"const int n_{n} = {key};")
            pre.append(f"{b} s_{n}[XF_SMALL], *c_{n} = n_{n} <= XF_SMALL ? s_{n} : xf_alloc(n_{n}, sizeof({b}));")
            pre.append(f"for (int i = 0; i < n_{n}; ++i) c_{n}[i] = {stem}_f2c({n}[i]);")
            if not p["const"]:
                post.append(f"for (int i = 0; i < n_{n}; ++i) {n}[i] = {stem}_c2f(c_{n}[i]);")
            post.append(f"if (c_{n} != s_{n}) free(c_{n});")
            call.append(f"c_{n}")
        elif b == "MPI_Status" and not p["array"]:
            decl.append(f"MPI_Fint* {n}")
            pre.append(f"MPI_Status c_{n}, *p_{n} = xf_status_ignored({n}) ? MPI_STATUS_IGNORE : &c_{n};")
            if p["const"]:
                pre.append(f"if (p_{n} != MPI_STATUS_IGNORE) MPI_Status_f2c({n}, &c_{n});")
            else:
                post.append(f"if (p_{n} != MPI_STATUS_IGNORE) MPI_Status_c2f(&c_{n}, {n});")
            call.append(f"p_{n}")
        elif b == "MPI_Status" and p["array"]:
            if not key:
                raise Unbindable(f"status array {n} without a length rule")
            decl.append(f"MPI_Fint* {n}")
            post_len = key.startswith("post:")
            expr = key[5:] if post_len else key
            if not post_len:
                pre.append(f"const int n_{n} = {expr};")
                alloc = f"n_{n}"
            else:
                alloc = "*incount"
            pre.append(f"MPI_Status s_{n}[XF_SMALL], *c_{n} = xf_statuses_ignored({n}) ? MPI_STATUSES_IGNORE : "
                       f"{alloc} <= XF_SMALL ? s_{n} : xf_alloc({alloc}, sizeof(MPI_Status));")
            count = expr if post_len else f"n_{n}"
            post.append(f"if (c_{n} != MPI_STATUSES_IGNORE) {{")
            post.append(f"  for (int i = 0, e = {count}; i < e; ++i) MPI_Status_c2f(&c_{n}[i], {n} + i * XF_STATUS_SIZE);")
            post.append(f"  if (c_{n} != s_{n}) free(c_{n});")
            post.append("}")
            call.append(f"c_{n}")
        elif b == "char" and k == 1 and not p["array"]:
            decl.append(f"char* {n}")
            lens.append(f"size_t {n}_len")
            if p["const"]:
                pre.append(f"char* c_{n} = xf_string_in({n}, {n}_len);")
                post.append(f"free(c_{n});")
            else:
                pre.append(f"char* c_{n} = xf_string_buffer({n}_len);")
                post.append(f"xf_string_out(c_{n}, {n}, {n}_len);")
            call.append(f"c_{n}")
        else:
            raise Unbindable(f"parameter {b}{'*' * k} {n}")
    decl.append("MPI_Fint* ierr")
    lower = fn.lower()
    body = [f"XF_ENTRY void {lower}_({', '.join(decl + lens)}) {{"]
    body += [f"  {s}" for s in pre]
    body.append(f"  int rc = {cfn}({', '.join(call)});")
    body += [f"  {s}" for s in post]
    body.append("  *ierr = rc;")
    body.append("}")
    body.append(f"XF_ALIASES({lower}_, {lower}, {lower}__, {fn.upper()})")
    if fn in CPTR:
        body.append(f"XF_ALIASES({lower}_, {lower}_cptr_, {lower}_cptr, {lower}_cptr__)")
        body.append(f"XF_ALIAS1({lower}_, {fn.upper()}_CPTR)")
    return "\n".join(body)


def stub(fn):
    lower = fn.lower()
    return (f'XF_ENTRY void {lower}_(void) {{ xsim_unsupported("{fn}"); }}\n'
            f"XF_ALIASES({lower}_, {lower}, {lower}__, {fn.upper()})")


def generate(mpich_h, ompi_h):
    mpich = gen_unsupported.mpi_functions(pathlib.Path(mpich_h))
    if not pathlib.Path(ompi_h).exists():
        raise SystemExit(f"{ompi_h} not found: install libopenmpi-dev (scripts/install-deps.sh does)")
    ompi = gen_unsupported.mpi_functions(pathlib.Path(ompi_h))
    impl = gen_unsupported.implemented()
    names = sorted(n for n in mpich if (n in ompi or n in RENAMED or n in SPECIAL) and not n.endswith("_c")
                   and not C_ONLY.search(n))
    bound, stubs, errors = [], [], []
    for n in names:
        if n in SPECIAL or n in NATIVE:
            continue
        virtual = gen_unsupported.VIRTUAL.search(mpich[n])
        if n in impl:
            try:
                bound.append((n, binding(n, RENAMED.get(n, n), parse_params(mpich[n]))))
            except Unbindable as e:
                errors.append(f"{n}: {e} (add a rule to fortran/gen_bindings.py or write it in special.c)")
        elif virtual:
            stubs.append(n)
    if errors:
        raise SystemExit("gen_bindings.py: cannot bind\n  " + "\n  ".join(errors))
    out = ["/* Generated by fortran/gen_bindings.py from MPICH's and Open MPI's mpi.h and the runtime sources:",
           " * do not edit. Fortran entry points (mpif.h, `use mpi`) of the MPI functions xsim implements, and",
           " * stops naming the virtual-object functions it does not. fortran/README.md explains the conventions. */",
           '#include "support.h"', ""]
    for n, text in bound:
        out += [f"/* {n} */", text, ""]
    out.append("/* not supported by xsim: each stops the run naming the function */")
    out += [stub(n) for n in stubs]
    return "\n".join(out) + "\n", len(bound), len(stubs)


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    text, nb, ns = generate(args[0] if args else MPICH_H, args[1] if len(args) > 1 else OMPI_H)
    path = HERE / "bindings.c"
    if check:
        if not path.exists() or path.read_text() != text:
            print(f"{path} is out of date: run fortran/gen_bindings.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(text)
    print(f"{nb} bindings, {ns} stops by name (+ {len(SPECIAL)} written by hand in special.c)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
