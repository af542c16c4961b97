! A program using the mpi_f08 module: xsim must refuse it by name (its bindings would bypass xsim).
program f08
  use mpi_f08
  integer :: rank, size, s
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print *, 'f08', size, s
  call MPI_Finalize()
end program
