// The message tags of the intracommunicator collectives (collectives.cpp, scan.cpp): one per collective kind
// (nested calls, such as the reduce inside a non-commutative reduce_scatter, use their own kind's tag: calls
// on a transport are ordered, so this is unambiguous). Their values show in traces and deadlock reports.
// Layer: libxsim/coll, internal.
#pragma once

namespace xsim::coll {

enum Tag : int {
  kTagBarrier = 1,
  kTagBcast,
  kTagReduce,
  kTagAllreduce,
  kTagGather,
  kTagGatherv,
  kTagScatter,
  kTagScatterv,
  kTagAllgather,
  kTagAllgatherv,
  kTagAlltoall,
  kTagAlltoallv,
  kTagReduceScatter,
  kTagScan,
  kTagExscan,
  kTagAlltoallw,
};

}  // namespace xsim::coll
