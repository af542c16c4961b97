! fortran_clock: Fortran's system_clock reads the rank's virtual time under xsim (docs/virtual-clocks.md),
! through libgfortran's clock_gettime. Every rank reads system_clock (8-byte counts: nanoseconds) and
! MPI_Wtime, waits in a barrier, and reads both again; with the processor model none the two intervals must
! be equal to the nanosecond. Prints one line per rank in rank order and ends with exit code 1 on a mismatch.
program fortran_clock
  use mpi
  implicit none
  integer :: ierr, me, np, r, bad, anybad
  integer(8) :: c0, c1, rate
  double precision :: w0, w1
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call system_clock(c0, rate)
  w0 = MPI_Wtime()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call system_clock(c1)
  w1 = MPI_Wtime()
  bad = 0
  if (rate /= 1000000000_8 .or. c1 - c0 /= nint((w1 - w0) * 1d9, 8)) bad = 1
  do r = 0, np - 1
    if (r == me) print '(A,I0,A,F12.9,A,F12.9,A,A)', 'rank ', me, ': system_clock ', dble(c1 - c0) / dble(rate), &
        ' s, MPI_Wtime ', w1 - w0, ' s: ', merge('the same ', 'DIFFERENT', bad == 0)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Allreduce(bad, anybad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (anybad /= 0) stop 1
end program fortran_clock
