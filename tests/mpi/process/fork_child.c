/* fork_child.c - a rank forks child processes after MPI_Init, as OSU's osu_latency_mp does (issue 20): a
 * child is not a rank. One child writes a line to its parent through a pipe and calls exit(3); another
 * returns 5 from main; a third (mode "mpi") calls MPI_Barrier, which natively is not allowed in a child
 * either: xsim ends it with exit code 1 and a message. The parent collects each child's words and exit
 * status and goes on with MPI; rank 0 prints every rank's lines (rank_log.h); a wrong status or word makes
 * the rank exit 1 (FAILED on stderr). Nothing of the simulation
 * (deadlock reports, MPI_Finalize, the run report) may happen in a child.
 *
 *   fork_child [mpi]
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rank_log.h"

enum { kExit, kReturn, kMpi };

/* Forks a child that ends the way `how` says; returns its exit status (or -1), its words in `said`. */
static int child(int me, int how, char* said, size_t cap, int* returned_in_child) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    char line[64];
    int n = snprintf(line, sizeof line, "child of rank %d", me);
    if (write(fds[1], line, (size_t)n) != n) _exit(9);
    close(fds[1]);
    if (how == kExit) exit(3);
    if (how == kMpi) MPI_Barrier(MPI_COMM_WORLD);
    *returned_in_child = 1;
    return 0;
  }
  close(fds[1]);
  ssize_t got = read(fds[0], said, cap - 1);
  said[got > 0 ? got : 0] = 0;
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int with_mpi = argc > 1 && strcmp(argv[1], "mpi") == 0;
  Log lg = {.len = 0};
  char said[64], want[64];
  snprintf(want, sizeof want, "child of rank %d", me);
  int in_child = 0, bad = 0;
  int code = child(me, kExit, said, sizeof said, &in_child);
  say(&lg, "exit(3): status %d, said '%s'\n", code, said);
  bad |= code != 3 || strcmp(said, want) != 0;
  MPI_Barrier(MPI_COMM_WORLD);
  code = child(me, kReturn, said, sizeof said, &in_child);
  if (in_child) return 5; /* the child returns from main */
  say(&lg, "return 5: status %d, said '%s'\n", code, said);
  bad |= code != 5 || strcmp(said, want) != 0;
  if (with_mpi) {
    code = child(me, kMpi, said, sizeof said, &in_child);
    if (in_child) return 0; /* not reached: the barrier ends the child */
    say(&lg, "MPI_Barrier in the child: status %d\n", code);
    bad |= code != 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  say(&lg, "parent goes on at %.9f s\n", MPI_Wtime());
  print_all(&lg, me, np);
  /* the output is compared across native process counts only: a wrong status must fail the run too */
  if (bad) fprintf(stderr, "fork_child: FAILED: rank %d: a child's exit status or words are wrong\n", me);
  MPI_Finalize();
  return bad;
}
