/* MPI_Iprobe's inline path ("nothing there": no unexpected message, no arrival due, nothing to progress)
 * and its full path give the same answers and charge the same poll cost. Rank 0 sends one int with tag 5
 * to rank 1 (ethernet: it arrives 50.032 us later). Rank 1 probes for tag 6 1,000 times: first with
 * nothing there (inline path), then, once the message has arrived (~50 us), with an unexpected message
 * that does not match (full path); every probe answers "no" and costs exactly the poll cost (100 ns).
 * Then a probe for tag 5 and one for any tag find the message. Prints one line per rank; exits 1 on a
 * wrong answer. */
#include <mpi.h>
#include <stdio.h>

static long long ps(double s) { return (long long)(s * 1e12 + (s >= 0 ? 0.5 : -0.5)); }

int main(int argc, char** argv) {
  int me, x = 7, flag = 0, ok = 1, count = -1, found6 = 0;
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    printf("rank 0: sent\n");
  } else if (me == 1) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < 1000; ++i) {
      MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &st);
      found6 |= flag;
    }
    long long polls_ps = ps(MPI_Wtime() - t0);
    MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    int found5 = flag, src5 = st.MPI_SOURCE, tag5 = st.MPI_TAG;
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    int found_any = flag;
    long long probes_ps = ps(MPI_Wtime() - t0);
    x = -1;
    MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok = !found6 && polls_ps == 100000000LL && found5 && src5 == 0 && tag5 == 5 && count == 1 && found_any &&
         probes_ps == 100200000LL && x == 7;
    printf("rank 1: tag 6 found %d in 1000 probes, %lld ps; tag 5 found %d (source %d, tag %d, count %d); "
           "any tag found %d; %lld ps; received %d: %s\n",
           found6, polls_ps, found5, src5, tag5, count, found_any, probes_ps, x, ok ? "ok" : "WRONG");
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
