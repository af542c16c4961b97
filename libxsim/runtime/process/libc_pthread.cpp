// POSIX threads for threaded ranks (MPI_THREAD_SERIALIZED and MULTIPLE; docs/applications.md "Threads"):
// pthread_create called by a threaded rank's application code makes a fiber of the rank (Engine::thread_create,
// core/rank_threads.hpp), and the calls with which threads wait for one another (join, mutexes, condition
// variables, barriers, semaphores, sched_yield) let the rank's other threads run instead of blocking the
// native thread that runs every rank. Everyone else gets libc's functions: other ranks, the native MPI's and
// the OpenMP runtime's threads, xsim itself; their first test is one relaxed load of g_threaded_ranks.
//
// The fibers of one rank share its native thread, so libc's own objects are used as far as they still work:
// a mutex is taken with pthread_mutex_trylock (which also excludes native threads), and xsim keeps which
// fiber holds it and who waits for it (a recursive or error-checking mutex would otherwise take the native
// thread's identity for the fiber's). Condition variables, barriers and semaphores keep their waiting fibers
// here; the libc object is still signalled, for native waiters.
// Layer: libxsim/runtime/process (xsim_process); exported through exports.map.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>

#include <cstring>
#include <deque>
#include <string>
#include <unordered_map>

#include "engine.hpp"
#include "libc_clocks.hpp"
#include "rank_threads.hpp"

using namespace xsim;

namespace {

template <class Fn>
Fn real(Fn& slot, const char* name) {
  if (!slot) slot = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  return slot;
}
#define REAL(name) real(real_##name, #name)

int (*real_pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) = nullptr;
int (*real_pthread_join)(pthread_t, void**) = nullptr;
int (*real_pthread_detach)(pthread_t) = nullptr;
void (*real_pthread_exit)(void*) = nullptr;
int (*real_pthread_mutex_lock)(pthread_mutex_t*) = nullptr;
int (*real_pthread_mutex_trylock)(pthread_mutex_t*) = nullptr;
int (*real_pthread_mutex_unlock)(pthread_mutex_t*) = nullptr;
int (*real_pthread_cond_wait)(pthread_cond_t*, pthread_mutex_t*) = nullptr;
int (*real_pthread_cond_timedwait)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*) = nullptr;
int (*real_pthread_cond_signal)(pthread_cond_t*) = nullptr;
int (*real_pthread_cond_broadcast)(pthread_cond_t*) = nullptr;
int (*real_pthread_barrier_init)(pthread_barrier_t*, const pthread_barrierattr_t*, unsigned) = nullptr;
int (*real_pthread_barrier_wait)(pthread_barrier_t*) = nullptr;
int (*real_pthread_barrier_destroy)(pthread_barrier_t*) = nullptr;
int (*real_sem_wait)(sem_t*) = nullptr;
int (*real_sem_timedwait)(sem_t*, const struct timespec*) = nullptr;
int (*real_sem_trywait)(sem_t*) = nullptr;
int (*real_sem_post)(sem_t*) = nullptr;
int (*real_sched_yield)() = nullptr;

// Whether the caller is application code of a threaded rank (the fibers' side of every function here).
bool fiber_side() {
  return g_threaded_ranks.load(std::memory_order_relaxed) && app_code_running() && g_engine->current().threaded;
}

// A call that waits is a point where the rank's engine runs: the compute time so far is charged first (and an
// earlier sibling thread goes first), the call itself takes no MPI time.
struct SyncCall {
  SyncCall() { g_engine->mpi_enter(); }
  ~SyncCall() { g_engine->sync_leave(); }
  SyncCall(const SyncCall&) = delete;
  SyncCall& operator=(const SyncCall&) = delete;
};

// Whether the code at `ra` is an OpenMP runtime's (its threads wait for one another with raw futexes, which
// fibers cannot: they stay native threads and may not call MPI) or a sanitizer's (ASan's pthread_create
// wraps the start routine in its own per-thread set-up, which only a native thread can run).
bool created_by_runtime(const void* ra) {
  Dl_info info;
  if (!dladdr(ra, &info) || !info.dli_fname) return false;
  const char* base = std::strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  return !std::strncmp(base, "libgomp", 7) || !std::strncmp(base, "libomp", 6) || !std::strncmp(base, "libiomp", 7) ||
         !std::strncmp(base, "libasan", 7) || !std::strncmp(base, "libtsan", 7);
}

struct Waiters {
  std::deque<RankThread*> queue;
  void add(RankThread* t) { queue.push_back(t); }
  bool wake_one() {
    if (queue.empty()) return false;
    RankThread* t = queue.front();
    queue.pop_front();
    g_engine->thread_wake(t);
    return true;
  }
  void wake_all() {
    while (wake_one()) {
    }
  }
  void drop(RankThread* t) {
    for (auto it = queue.begin(); it != queue.end(); ++it)
      if (*it == t) {
        queue.erase(it);
        return;
      }
  }
};

struct MutexState {
  RankThread* owner = nullptr;
  int depth = 0;
  Waiters waiters;
};
struct BarrierState {
  unsigned count = 0, arrived = 0;
  SimTime latest;
  Waiters waiters;
};

// The fibers' side of a synchronisation object, by the rank and the object's address: a rank's globals may
// live at the same addresses as every other rank's (privatized in place). Only the simulation's thread
// touches these (fiber_side() is true on it alone).
struct Key {
  int32_t rank;
  const void* object;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<const void*>()(k.object) ^ (static_cast<size_t>(k.rank) * 0x9e3779b97f4a7c15ull);
  }
};
template <class T>
using ByObject = std::unordered_map<Key, T, KeyHash>;
ByObject<MutexState> g_mutexes;
ByObject<Waiters> g_conds;
ByObject<BarrierState> g_barriers;
ByObject<Waiters> g_sems;
Key key(const void* object) { return Key{g_engine->current().world, object}; }

int mutex_kind(const pthread_mutex_t* m) { return m->__data.__kind & 3; }  // glibc: NORMAL 0, RECURSIVE 1, ERRORCHECK 2

int fiber_lock(pthread_mutex_t* m, bool try_only) {
  RankThread* me = g_engine->thread_running();
  for (;;) {
    MutexState& s = g_mutexes[key(m)];
    if (s.owner == me && mutex_kind(m) == PTHREAD_MUTEX_RECURSIVE) {
      const int rc = REAL(pthread_mutex_trylock)(m);
      if (rc == 0) ++s.depth;
      return rc;
    }
    if (s.owner == me) {
      if (try_only) return EBUSY;
      if (mutex_kind(m) == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
      g_engine->abort_simulation(1, "rank " + std::to_string(g_engine->current().world) + ", thread " +
                                        std::to_string(me->id) +
                                        ": pthread_mutex_lock on a mutex the thread already holds (it would wait "
                                        "for itself forever)");
    }
    if (!s.owner) {
      const int rc = REAL(pthread_mutex_trylock)(m);
      if (rc == 0) {
        s.owner = me;
        s.depth = 1;
        return 0;
      }
      if (rc != EBUSY) return rc;
      if (try_only) return EBUSY;
      // Held by a native thread, not a fiber: let the rank's other threads run meanwhile, then try again.
      g_engine->thread_yield();
      REAL(sched_yield)();
      continue;
    }
    if (try_only) return EBUSY;
    s.waiters.add(me);
    g_engine->thread_wait("pthread_mutex_lock");
  }
}

int fiber_unlock(pthread_mutex_t* m) {
  auto it = g_mutexes.find(key(m));
  if (it != g_mutexes.end() && it->second.owner) {
    MutexState& s = it->second;
    if (s.owner != g_engine->thread_running() && mutex_kind(m) == PTHREAD_MUTEX_ERRORCHECK) return EPERM;
    if (--s.depth == 0) {
      s.owner = nullptr;
      s.waiters.wake_one();
      if (s.waiters.queue.empty()) g_mutexes.erase(it);
    }
  }
  return REAL(pthread_mutex_unlock)(m);
}

int fiber_cond_wait(pthread_cond_t* c, pthread_mutex_t* m, bool timed) {
  RankThread* me = g_engine->thread_running();
  g_conds[key(c)].add(me);
  int rc = fiber_unlock(m);
  if (rc) {
    g_conds[key(c)].drop(me);
    return rc;
  }
  // A timed wait that nothing could end any more (no thread can run, none waits for a message) times out.
  const bool woken = g_engine->thread_wait(timed ? "pthread_cond_timedwait" : "pthread_cond_wait", timed);
  if (!woken) g_conds[key(c)].drop(me);
  rc = fiber_lock(m, false);
  return rc ? rc : woken ? 0 : ETIMEDOUT;
}

int fiber_sem_wait(sem_t* s, bool timed) {
  for (;;) {
    if (REAL(sem_trywait)(s) == 0) return 0;
    if (errno != EAGAIN) return -1;
    RankThread* me = g_engine->thread_running();
    g_sems[key(s)].add(me);
    if (!g_engine->thread_wait(timed ? "sem_timedwait" : "sem_wait", timed)) {
      g_sems[key(s)].drop(me);
      errno = ETIMEDOUT;
      return -1;
    }
  }
}

}  // namespace

#define XSIM_EXPORT extern "C" __attribute__((visibility("default")))

XSIM_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  if (!fiber_side() || created_by_runtime(__builtin_return_address(0)))
    return REAL(pthread_create)(thread, attr, start, arg);
  size_t stack = size_t{8} << 20;  // glibc's default for a thread (lazily committed)
  int detach = PTHREAD_CREATE_JOINABLE;
  if (attr) {
    size_t asked = 0;
    if (pthread_attr_getstacksize(attr, &asked) == 0 && asked) stack = asked;
    pthread_attr_getdetachstate(attr, &detach);
  }
  SyncCall call;
  RankThread* t = g_engine->thread_create(start, arg, stack, detach == PTHREAD_CREATE_DETACHED);
  if (!t) return EAGAIN;
  *thread = reinterpret_cast<pthread_t>(t);
  return 0;
}

XSIM_EXPORT int pthread_join(pthread_t thread, void** result) {
  if (fiber_side())
    if (RankThread* t = g_engine->rank_thread(reinterpret_cast<const void*>(thread))) {
      SyncCall call;
      return g_engine->thread_join(t, result);
    }
  return REAL(pthread_join)(thread, result);
}

XSIM_EXPORT int pthread_detach(pthread_t thread) {
  if (fiber_side())
    if (RankThread* t = g_engine->rank_thread(reinterpret_cast<const void*>(thread))) return g_engine->thread_detach(t);
  return REAL(pthread_detach)(thread);
}

XSIM_EXPORT void pthread_exit(void* result) {
  if (app_code_running()) {  // on the native thread that runs every rank
    if (fiber_side() && g_engine->thread_running()->id != 0) g_engine->thread_exit(result);
    g_engine->abort_simulation(1, "rank " + std::to_string(g_engine->current().world) +
                                      ": pthread_exit called by the rank's main thread, which is the native thread "
                                      "that runs every rank of the process: not supported (return from main, or "
                                      "call exit, instead)");
  }
  REAL(pthread_exit)(result);
  __builtin_unreachable();
}

XSIM_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  if (!fiber_side()) return REAL(pthread_mutex_lock)(m);
  SyncCall call;
  return fiber_lock(m, false);
}

XSIM_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  if (!fiber_side()) return REAL(pthread_mutex_trylock)(m);
  return fiber_lock(m, true);
}

XSIM_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  if (!fiber_side()) return REAL(pthread_mutex_unlock)(m);
  return fiber_unlock(m);
}

XSIM_EXPORT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (!fiber_side()) return REAL(pthread_cond_wait)(c, m);
  SyncCall call;
  return fiber_cond_wait(c, m, false);
}

XSIM_EXPORT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* abstime) {
  if (!fiber_side()) return REAL(pthread_cond_timedwait)(c, m, abstime);
  SyncCall call;
  return fiber_cond_wait(c, m, true);
}

XSIM_EXPORT int pthread_cond_signal(pthread_cond_t* c) {
  if (fiber_side())
    if (auto it = g_conds.find(key(c)); it != g_conds.end()) {
      it->second.wake_one();
      if (it->second.queue.empty()) g_conds.erase(it);
    }
  return REAL(pthread_cond_signal)(c);
}

XSIM_EXPORT int pthread_cond_broadcast(pthread_cond_t* c) {
  if (fiber_side())
    if (auto it = g_conds.find(key(c)); it != g_conds.end()) {
      it->second.wake_all();
      g_conds.erase(it);
    }
  return REAL(pthread_cond_broadcast)(c);
}

XSIM_EXPORT int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr, unsigned count) {
  const int rc = REAL(pthread_barrier_init)(b, attr, count);
  // Noted for any rank (it may ask for threads later); only threaded ranks' fibers wait in it through xsim.
  if (rc == 0 && app_code_running()) g_barriers[key(b)] = BarrierState{count, 0, SimTime(), {}};
  return rc;
}

XSIM_EXPORT int pthread_barrier_destroy(pthread_barrier_t* b) {
  if (app_code_running()) g_barriers.erase(key(b));
  return REAL(pthread_barrier_destroy)(b);
}

XSIM_EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  auto it = fiber_side() ? g_barriers.find(key(b)) : g_barriers.end();
  if (it == g_barriers.end()) return REAL(pthread_barrier_wait)(b);
  SyncCall call;
  BarrierState& s = it->second;
  Rank& r = g_engine->current();
  if (s.latest < r.clock) s.latest = r.clock;
  if (++s.arrived < s.count) {
    s.waiters.add(g_engine->thread_running());
    g_engine->thread_wait("pthread_barrier_wait");
    return 0;
  }
  // The last to arrive: everyone leaves at the latest arrival's time.
  if (r.clock < s.latest) r.clock = s.latest;
  s.arrived = 0;
  s.latest = SimTime();
  s.waiters.wake_all();
  return PTHREAD_BARRIER_SERIAL_THREAD;
}

XSIM_EXPORT int sem_wait(sem_t* s) {
  if (!fiber_side()) return REAL(sem_wait)(s);
  SyncCall call;
  return fiber_sem_wait(s, false);
}

XSIM_EXPORT int sem_timedwait(sem_t* s, const struct timespec* abstime) {
  if (!fiber_side()) return REAL(sem_timedwait)(s, abstime);
  SyncCall call;
  return fiber_sem_wait(s, true);
}

XSIM_EXPORT int sem_post(sem_t* s) {
  const int rc = REAL(sem_post)(s);
  if (rc == 0 && fiber_side())
    if (auto it = g_sems.find(key(s)); it != g_sems.end()) {
      it->second.wake_one();
      if (it->second.queue.empty()) g_sems.erase(it);
    }
  return rc;
}

XSIM_EXPORT int sched_yield() {
  if (!fiber_side()) return REAL(sched_yield)();
  SyncCall call;
  g_engine->thread_yield();
  return 0;
}
