! replay_module.f90 - MPI_Allreduce and MPI_Reduce whose buffers are Fortran module variables and a COMMON
! block, as in NPB EP and LU (issue 20): with several ranks per native process each rank has its own copy
! (docs/privatization.md), and the fast path of blocking collectives must reduce each rank's own. Every
! rank checks the closed-form sums; rank 0 prints the number of wrong results over all ranks and the
! virtual time. Exits 1 on any wrong result.
module replay_bufs
  implicit none
  double precision :: partial(16), total(16)
  integer :: counts(4)
end module replay_bufs

program replay_module
  use mpi
  use replay_bufs
  implicit none
  double precision :: energy
  common /stats/ energy
  integer :: ierr, rank, nranks, i, step, wrong, all_wrong
  double precision :: nsum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nsum = nranks * (nranks - 1) / 2.0d0
  wrong = 0
  do step = 1, 3
    do i = 1, 16
      partial(i) = rank * i + step
    end do
    call MPI_Allreduce(partial, total, 16, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    do i = 1, 16
      if (total(i) /= nsum * i + nranks * step) wrong = wrong + 1
    end do
    counts = rank + step
    call MPI_Allreduce(MPI_IN_PLACE, counts, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    if (any(counts /= nranks - 1 + step)) wrong = wrong + 1
    energy = rank
    call MPI_Allreduce(MPI_IN_PLACE, energy, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (energy /= nsum) wrong = wrong + 1
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Reduce(wrong, all_wrong, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,f12.9)', 'replay_module: wrong results ', all_wrong, ', time ', MPI_Wtime()
  call MPI_Finalize(ierr)
  if (wrong /= 0) stop 1
end program replay_module
