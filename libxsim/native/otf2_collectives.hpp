// OTF2's collective callbacks over the native MPI: lets every native process open one OTF2 archive and
// write its own virtual ranks' event files into it, while native process 0 (OTF2's primary archive)
// writes the anchor file and the global definitions. Built only when OTF2 was found (XSIM_HAVE_OTF2).
// Layer: libxsim/native (PMPI_* only here). Collective: every native process calls it for its archive.
#pragma once
#include <otf2/otf2.h>

namespace xsim::native {

// Registers callbacks spanning all native processes on `archive` (opened for writing); the archive
// keeps using them until it is closed.
OTF2_ErrorCode otf2_use_native_collectives(OTF2_Archive* archive);

}  // namespace xsim::native
