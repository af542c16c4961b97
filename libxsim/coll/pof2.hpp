// Power-of-two arithmetic shared by the collective algorithms (collectives.cpp) and their array replay
// (replay.cpp), so that both fold non-power-of-two process counts the same way. Pure functions of ints.
#pragma once

namespace xsim::coll {

inline bool is_pof2(int p) { return p > 0 && (p & (p - 1)) == 0; }
// The largest power of two <= p (1 for p < 2).
inline int pof2_floor(int p) {
  int v = 1;
  while (v * 2 <= p) v *= 2;
  return v;
}
// The smallest power of two >= p (1 for p < 2).
inline int pof2_ceil(int p) {
  int v = 1;
  while (v < p) v *= 2;
  return v;
}
// The folded-away ranks of the non-power-of-two schemes: of ranks [0, 2*rem) the even ones hand their data
// to the odd neighbour and sit out; the pof2 survivors get new ranks 0..pof2-1 in rank order. This maps a
// survivor's new rank back to its real rank.
inline int real_rank(int newrank, int rem) { return newrank < rem ? newrank * 2 + 1 : newrank + rem; }

}  // namespace xsim::coll
