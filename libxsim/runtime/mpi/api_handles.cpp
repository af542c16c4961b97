// Fortran <-> C handle conversion for the objects xsim owns (handles.hpp), for the native MPIs whose
// conversions are functions. With MPICH, MPI_Comm_c2f & co. are macros in mpi.h (the Fortran integer is the
// C handle), so only MPI_File's pair is xsim's (api_io.cpp). With Open MPI every pair is a function of
// libmpi: xsim defines those of communicators, groups, requests, messages, windows and error handlers. An
// xsim object's Fortran integer is its MPICH-style value; predefined handles (MPI_COMM_WORLD, MPI_COMM_SELF,
// the null handles, MPI_GROUP_EMPTY, MPI_ERRORS_*, MPI_MESSAGE_NO_PROC) are the native MPI's own objects and
// keep its Fortran values (Open MPI: MPI_COMM_WORLD 0, MPI_COMM_SELF 1, MPI_COMM_NULL 2). Datatypes, ops and
// info objects are native: their conversions stay libmpi's. Layer: libxsim/runtime/mpi (xsim_mpi). Pure
// functions: callable from anywhere (also outside a virtual rank: Fortran bindings convert first).
#include "api_support.hpp"
#include "handles.hpp"

#if defined(XSIM_NATIVE_OPENMPI)

namespace {

using xsim::handles::Kind;

template <typename H>
MPI_Fint c2f(Kind k, H h, MPI_Fint (*native)(H)) {
  uint32_t i = 0;
  if (xsim::handles::decode(k, h, &i)) return xsim::handles::to_fint(k, i);
  return native(h);  // a predefined handle: the native MPI's object
}

template <typename H>
H f2c(Kind k, MPI_Fint f, H (*native)(MPI_Fint)) {
  uint32_t i = 0;
  if (xsim::handles::from_fint(k, f, &i)) return xsim::handles::make<H>(k, i);
  return native(f);
}

}  // namespace

XSIM_API MPI_Fint MPI_Comm_c2f(MPI_Comm h) { return c2f(Kind::Comm, h, PMPI_Comm_c2f); }
XSIM_API MPI_Comm MPI_Comm_f2c(MPI_Fint f) { return f2c(Kind::Comm, f, PMPI_Comm_f2c); }
XSIM_API MPI_Fint MPI_Group_c2f(MPI_Group h) { return c2f(Kind::Group, h, PMPI_Group_c2f); }
XSIM_API MPI_Group MPI_Group_f2c(MPI_Fint f) { return f2c(Kind::Group, f, PMPI_Group_f2c); }
XSIM_API MPI_Fint MPI_Request_c2f(MPI_Request h) { return c2f(Kind::Request, h, PMPI_Request_c2f); }
XSIM_API MPI_Request MPI_Request_f2c(MPI_Fint f) { return f2c(Kind::Request, f, PMPI_Request_f2c); }
XSIM_API MPI_Fint MPI_Message_c2f(MPI_Message h) { return c2f(Kind::Message, h, PMPI_Message_c2f); }
XSIM_API MPI_Message MPI_Message_f2c(MPI_Fint f) { return f2c(Kind::Message, f, PMPI_Message_f2c); }
XSIM_API MPI_Fint MPI_Win_c2f(MPI_Win h) { return c2f(Kind::Win, h, PMPI_Win_c2f); }
XSIM_API MPI_Win MPI_Win_f2c(MPI_Fint f) { return f2c(Kind::Win, f, PMPI_Win_f2c); }
XSIM_API MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler h) { return c2f(Kind::Errhandler, h, PMPI_Errhandler_c2f); }
XSIM_API MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint f) { return f2c(Kind::Errhandler, f, PMPI_Errhandler_f2c); }

#endif  // XSIM_NATIVE_OPENMPI
