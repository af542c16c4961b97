program fortran_hello
  use mpi
  implicit none
  integer :: ierr, me, np, total
  double precision :: t
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Allreduce(me, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  t = MPI_Wtime()
  if (me == 0) print '(A,I0,A,I0,A,F12.9)', 'fortran_hello: ', np, ' ranks, sum ', total, ' time ', t
  call MPI_Finalize(ierr)
end program fortran_hello
