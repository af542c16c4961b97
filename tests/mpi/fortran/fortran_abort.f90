! fortran_abort.f90 - MPI_Abort from Fortran while every other rank is blocked waiting for the aborting
! rank: the whole run must end with the abort's code (not a deadlock report, not a hang), for any number
! of native processes (MPICH's abort with one process calls exit(), which must end the process).
program fortran_abort
  implicit none
  call run()
contains
  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me, val
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    if (me == 1) then
      call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
    else
      call MPI_Recv(val, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
    print '(A,I0,A)', 'rank ', me, ': still running after the abort'
    call MPI_Finalize(ierr)
  end subroutine run
end program fortran_abort
