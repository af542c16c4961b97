! fortran_calls.f90 - the cost of Fortran MPI calls under xsim, for comparing Fortran bindings (xsim's own,
! fortran/, against MPICH's libmpifort: bench/README.md). Each iteration: MPI_Comm_rank, then an
! MPI_Isend/MPI_Irecv pair to itself completed by MPI_Waitall with a status array. Argument: iterations.
program fortran_calls
  implicit none
  call run()
contains
  recursive subroutine run()
    use mpi
    integer :: ierr, me, i, n, reqs(2), sts(MPI_STATUS_SIZE, 2), a, b
    character(len=16) :: arg
    call MPI_Init(ierr)
    n = 1000
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read(arg, *) n
    end if
    a = 1
    do i = 1, n
      call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
      call MPI_Isend(a, 1, MPI_INTEGER, me, 0, MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_Irecv(b, 1, MPI_INTEGER, me, 0, MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_Waitall(2, reqs, sts, ierr)
    end do
    if (me == 0) print '(A,I0,A,F12.9)', 'fortran_calls: ', n, ' iterations, t=', MPI_Wtime()
    call MPI_Finalize(ierr)
  end subroutine run
end program fortran_calls
