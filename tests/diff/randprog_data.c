/* randprog_data.c — random datatypes, buffers and reduction choices for randprog (randprog.h). */
#include "randprog.h"

/* ---------------------------------------------------------------------------------------------------
 * Layouts: a datatype (predefined or derived) and a count that together hold n elements of one base
 * type. Both sides of a transfer draw their layouts independently; the signatures agree. */
const char *const layout_name[NLAYOUT] = {"contig", "vector", "hvector", "indexed", "hindexed",
                                           "indexed_block", "struct", "resized"};

int random_divisor(Rng *r, int n, int cap) {
  int d[64], k = 0;
  for (int i = 1; i <= n && i <= cap && k < 64; i++) if (n % i == 0) d[k++] = i;
  return d[rint_(r, 0, k - 1)];
}

/* n elements of base; single: one instance holds all of them (count 1), n >= 1. */
Layout make_layout(Rng *r, int base, int n, int single) {
  Layout L;
  memset(&L, 0, sizeof L);
  L.base = base;
  L.variant = base == B_S ? rint_(r, 0, 1) : 0;
  L.kind = rpct(r, 35) ? L_CONTIG : rint_(r, 1, NLAYOUT - 1);
  if (single) L.per = n;
  else if (n == 0) L.per = rint_(r, 1, 6);
  else if (L.kind == L_CONTIG) L.per = rpct(r, 70) ? 1 : random_divisor(r, n, 512);
  else L.per = random_divisor(r, n, 512);
  L.count = single ? 1 : (n == 0 ? 0 : n / L.per);
  int per = L.per;
  switch (L.kind) {
  case L_VECTOR: case L_HVECTOR: case L_INDEXED_BLOCK: {
    int bl = random_divisor(r, per, per), nb = per / bl;
    if (L.kind == L_INDEXED_BLOCK && nb > MAXBLK) L.kind = L_VECTOR;
    L.nblk = nb;
    L.blen[0] = bl;
    L.stride = bl + rint_(r, 0, 3);
    if (L.kind == L_INDEXED_BLOCK) {
      int pos = 0;
      for (int i = 0; i < nb; i++) { pos += rint_(r, 0, 2); L.disp[i] = pos; L.blen[i] = bl; pos += bl; }
    }
    break;
  }
  case L_INDEXED: case L_HINDEXED: case L_STRUCT: {
    int nb = rint_(r, 1, per < MAXBLK ? per : MAXBLK), left = per, pos = 0;
    for (int i = 0; i < nb; i++) {
      int len = i == nb - 1 ? left : rint_(r, 1, left - (nb - 1 - i));
      left -= len;
      pos += rint_(r, 0, 2);
      L.blen[i] = len; L.disp[i] = pos; pos += len;
    }
    L.nblk = nb;
    break;
  }
  default: break;
  }
  if ((L.kind == L_INDEXED || L.kind == L_HINDEXED || L.kind == L_STRUCT || L.kind == L_INDEXED_BLOCK) &&
      rpct(r, 50)) {  /* blocks out of memory order: the type map order is not the address order */
    for (int i = L.nblk - 1; i > 0; i--) {
      int j = rint_(r, 0, i), t;
      t = L.blen[i]; L.blen[i] = L.blen[j]; L.blen[j] = t;
      t = L.disp[i]; L.disp[i] = L.disp[j]; L.disp[j] = t;
    }
  }
  if (L.kind == L_RESIZED) L.extra = 8 * rint_(r, 1, 3);
  else if (L.kind != L_CONTIG && rpct(r, 20)) L.extra = 8 * rint_(r, 1, 2);
  return L;
}


MPI_Datatype base_type(const Types *t, int base, int variant) {
  switch (base) {
  case B_INT: return MPI_INT;
  case B_DOUBLE: return MPI_DOUBLE;
  case B_CHAR: return MPI_CHAR;
  case B_SHORT: return MPI_SHORT;
  case B_LL: return MPI_LONG_LONG;
  default: return variant ? t->s_pack : t->s_nat;
  }
}

/* The layout's datatype (committed); *owned says whether the caller must free it. */
MPI_Datatype build_type(const Types *t, const Layout *L, int *owned) {
  MPI_Datatype b = base_type(t, L->base, L->variant), d = MPI_DATATYPE_NULL;
  MPI_Aint lb, bext;
  MPI_Type_get_extent(b, &lb, &bext);
  int n = L->nblk;
  MPI_Aint hd[MAXBLK];
  for (int i = 0; i < n && i < MAXBLK; i++) hd[i] = (MPI_Aint)L->disp[i] * bext; /* vectors: nblk > MAXBLK */
  switch (L->kind) {
  case L_CONTIG:
    if (L->per == 1) { *owned = 0; return b; }
    MPI_Type_contiguous(L->per, b, &d);
    break;
  case L_VECTOR: MPI_Type_vector(n, L->blen[0], L->stride, b, &d); break;
  case L_HVECTOR: MPI_Type_create_hvector(n, L->blen[0], (MPI_Aint)L->stride * bext, b, &d); break;
  case L_INDEXED: MPI_Type_indexed(n, L->blen, L->disp, b, &d); break;
  case L_HINDEXED: MPI_Type_create_hindexed(n, L->blen, hd, b, &d); break;
  case L_INDEXED_BLOCK: MPI_Type_create_indexed_block(n, L->blen[0], L->disp, b, &d); break;
  case L_STRUCT: {
    MPI_Datatype ts[MAXBLK];
    for (int i = 0; i < n; i++) ts[i] = b;
    MPI_Type_create_struct(n, L->blen, hd, ts, &d);
    break;
  }
  case L_RESIZED: MPI_Type_contiguous(L->per, b, &d); break;
  }
  if (L->extra) {
    MPI_Datatype r;
    MPI_Aint ext;
    MPI_Type_get_extent(d, &lb, &ext);
    MPI_Type_create_resized(d, lb, ext + L->extra, &r);
    MPI_Type_free(&d);
    d = r;
  }
  MPI_Type_commit(&d);
  *owned = 1;
  return d;
}

/* Bytes from the buffer's start that count instances of t touch (lower bounds are never negative). */
size_t span_of(MPI_Datatype t, int count) {
  if (count <= 0) return 0;
  MPI_Aint lb, ext, tlb, text;
  MPI_Type_get_extent(t, &lb, &ext);
  MPI_Type_get_true_extent(t, &tlb, &text);
  return (size_t)(tlb + (MPI_Aint)(count - 1) * ext + text);
}

/* The layout's type map, walked without MPI: copies the data bytes of `count` instances between `buf` (laid
 * out by the type, whose extent the caller gives) and a packed `stream`, in type-map order, stopping after
 * `nbytes`. The self-check compares received data with this (MPI's own pack engine is under test too). */
size_t walk(const Layout *L, MPI_Aint extent, int count, char *buf, char *stream, size_t nbytes, int to_stream) {
  static const int nat_off[3] = {0, 8, 16}, pack_off[3] = {0, 4, 12}, s_len[3] = {4, 8, 3};
  size_t bext = L->base == B_S ? (L->variant ? 15 : 24) : (size_t)base_size(L->base);
  size_t done = 0;
  for (int i = 0; i < count && done < nbytes; i++)
    for (int e = 0; e < L->per && done < nbytes; e++) {
      long el;  /* element e's offset within the instance, in base extents or bytes */
      switch (L->kind) {
      case L_VECTOR: case L_HVECTOR:
        el = (long)(e / L->blen[0]) * L->stride * (long)bext + (long)(e % L->blen[0]) * (long)bext;
        break;
      case L_INDEXED: case L_HINDEXED: case L_STRUCT: case L_INDEXED_BLOCK: {
        int k = 0, left = e;
        while (left >= L->blen[k]) left -= L->blen[k++];
        el = ((long)L->disp[k] + left) * (long)bext;
        break;
      }
      default: el = (long)e * (long)bext; break;
      }
      char *at = buf + (long)i * extent + el;
      int nrun = L->base == B_S ? 3 : 1;
      for (int k = 0; k < nrun && done < nbytes; k++) {
        size_t off = L->base == B_S ? (size_t)(L->variant ? pack_off[k] : nat_off[k]) : 0;
        size_t len = L->base == B_S ? (size_t)s_len[k] : bext;
        if (len > nbytes - done) len = nbytes - done;
        if (to_stream) memcpy(stream + done, at + off, len);
        else memcpy(at + off, stream + done, len);
        done += len;
      }
    }
  return done;
}

/* A buffer with its datatype. */
void buf_make(Buf *b, const Types *t, const Layout *L, int units, int random, uint64_t seed) {
  b->type = build_type(t, L, &b->owned);
  b->count = L->count;
  b->alloc = span_of(b->type, units) + GUARD;
  b->buf = malloc(b->alloc);
  if (random) fill_random(b->buf, b->alloc, seed);
  else memset(b->buf, 0xA5, b->alloc);
}
void buf_free(Buf *b) {
  if (b->owned) MPI_Type_free(&b->type);
  free(b->buf);
  b->buf = NULL;
  b->owned = 0;
}

/* ---------------------------------------------------------------------------------------------------
 * Reductions: datatype, op and value domain. Values are exact in every order of evaluation; user ops
 * are associative (MPI requires it), some not commutative. */
const RedChoice reds[] = {
  {DT_INT, OP_SUM, V_SMALL, "int sum"}, {DT_INT, OP_PROD, V_PROD, "int prod"},
  {DT_INT, OP_MAX, V_BITS, "int max"}, {DT_INT, OP_MIN, V_BITS, "int min"},
  {DT_INT, OP_BAND, V_BITS, "int band"}, {DT_INT, OP_BOR, V_BITS, "int bor"},
  {DT_UNSIGNED, OP_BXOR, V_BITS, "unsigned bxor"}, {DT_INT, OP_LAND, V_LOGIC, "int land"},
  {DT_INT, OP_LOR, V_LOGIC, "int lor"}, {DT_INT, OP_LXOR, V_LOGIC, "int lxor"},
  {DT_DOUBLE, OP_SUM, V_SMALL, "double sum"}, {DT_DOUBLE, OP_MAX, V_SMALL, "double max"},
  {DT_DOUBLE, OP_MIN, V_SMALL, "double min"}, {DT_DOUBLE, OP_PROD, V_PROD, "double prod"},
  {DT_FLOAT, OP_SUM, V_SMALL, "float sum"}, {DT_LL, OP_SUM, V_BITS, "long long sum"},
  {DT_SHORT, OP_MAX, V_BITS, "short max"}, {DT_2INT, OP_MAXLOC, V_LOC, "2int maxloc"},
  {DT_2INT, OP_MINLOC, V_LOC, "2int minloc"}, {DT_DOUBLE_INT, OP_MAXLOC, V_LOC, "double_int maxloc"},
  {DT_DOUBLE_INT, OP_MINLOC, V_LOC, "double_int minloc"},
  {DT_UNSIGNED, OP_UCOMM, V_BITS, "user commutative"}, {DT_MAT, OP_MATMUL, V_BITS, "user matmul"},
  {DT_INT, OP_FIRST, V_BITS, "user first"}, {DT_INT, OP_LAST, V_BITS, "user last"},
};

size_t dt_size(int dt) {
  switch (dt) {
  case DT_DOUBLE: case DT_LL: case DT_2INT: return 8;
  case DT_SHORT: return 2;
  case DT_DOUBLE_INT: return sizeof(DoubleInt);
  case DT_MAT: return 16;
  default: return 4;
  }
}
MPI_Datatype dt_type(const Types *t, int dt) {
  switch (dt) {
  case DT_INT: return MPI_INT;
  case DT_DOUBLE: return MPI_DOUBLE;
  case DT_UNSIGNED: return MPI_UNSIGNED;
  case DT_LL: return MPI_LONG_LONG;
  case DT_SHORT: return MPI_SHORT;
  case DT_2INT: return MPI_2INT;
  case DT_DOUBLE_INT: return MPI_DOUBLE_INT;
  case DT_FLOAT: return MPI_FLOAT;
  default: return t->mat;
  }
}
MPI_Op op_handle(const Types *t, int op) {
  static const MPI_Op pre[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR,
                               MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC};
  switch (op) {
  case OP_UCOMM: return t->op_ucomm;
  case OP_MATMUL: return t->op_matmul;
  case OP_FIRST: return t->op_first;
  case OP_LAST: return t->op_last;
  default: return pre[op];
  }
}

/* (1 + a)(1 + b) - 1: associative and commutative modulo 2^32. */
void op_ucomm_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  unsigned *a = in, *b = inout;
  for (int i = 0; i < *len; i++) b[i] = a[i] + b[i] + a[i] * b[i];
}
/* 2x2 matrix product modulo 2^32, in (lower ranks) times inout (higher ranks): not commutative. */
void op_matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  int size;
  MPI_Type_size(*dt, &size);
  if (size != 16) die("user op matmul called with a datatype that is not 16 bytes");
  unsigned *a = in, *b = inout;
  for (int i = 0; i < *len; i++, a += 4, b += 4) {
    unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}
/* a o b = a (the lowest rank's value wins) and a o b = b (the highest's): associative, not commutative. */
void op_first_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  memcpy(inout, in, (size_t)*len * sizeof(int));
}
void op_last_fn(void *in, void *inout, int *len, MPI_Datatype *dt) { (void)in; (void)inout; (void)len; (void)dt; }

void gen_values(void *buf, int dt, int vals, int count, int nranks, uint64_t seed) {
  memset(buf, 0, (size_t)count * dt_size(dt));
  for (int i = 0; i < count; i++) {
    uint64_t x = mix64(seed + (uint64_t)i * 7919);
    int64_t v;
    switch (vals) {
    case V_SMALL: v = (int64_t)(x % 2001) - 1000; break;
    case V_PROD: v = nranks <= 8 ? (int64_t)(x % 4) - 1 : ((x & 1) ? 1 : -1); if (v == 0) v = 2; break;
    case V_LOGIC: v = (int64_t)(x % 3); break;
    case V_LOC: v = (int64_t)(x % 4); break;
    default: v = (int64_t)x; break;
    }
    char *e = (char *)buf + (size_t)i * dt_size(dt);
    switch (dt) {
    case DT_INT: { int y = (int)v; memcpy(e, &y, 4); break; }
    case DT_UNSIGNED: { unsigned y = (unsigned)v; memcpy(e, &y, 4); break; }
    case DT_FLOAT: { float y = (float)(vals == V_BITS ? (int)(v % 1000) : v); memcpy(e, &y, 4); break; }
    case DT_DOUBLE: { double y = (double)(vals == V_BITS ? (int)(v % 100000) : v); memcpy(e, &y, 8); break; }
    case DT_LL: { long long y = (long long)(v >> 24); memcpy(e, &y, 8); break; }
    case DT_SHORT: { short y = (short)v; memcpy(e, &y, 2); break; }
    case DT_2INT: { int y[2] = {(int)v, (int)(mix64(x) % 100)}; memcpy(e, y, 8); break; }
    case DT_DOUBLE_INT: { DoubleInt y = {(double)v, (int)(mix64(x) % 100)}; memcpy(e, &y.v, 8); memcpy(e + 8, &y.i, 4); break; }
    case DT_MAT: { unsigned y[4] = {(unsigned)x, (unsigned)(x >> 32), (unsigned)mix64(x), (unsigned)mix64(x + 1)}; memcpy(e, y, 16); break; }
    }
  }
}
/* Digests reduction results field by field (the padding of MPI_DOUBLE_INT is nobody's business). */
void hash_values(uint64_t *h, const void *buf, int dt, int count) {
  for (int i = 0; i < count; i++) {
    const char *e = (const char *)buf + (size_t)i * dt_size(dt);
    if (dt == DT_DOUBLE_INT) { hash_bytes(h, e, 8); hash_bytes(h, e + 8, 4); }
    else hash_bytes(h, e, dt_size(dt));
  }
}


size_t base_size(int base) { static const size_t s[NBASE] = {4, 8, 1, 2, 8, 15}; return s[base]; }
const int nreds = (int)(sizeof reds / sizeof reds[0]);
