! fortran_crash.f90 - faults in Fortran ranks must still be reported by xsim with the virtual rank's number:
! libgfortran installs its own SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers at the start of every Fortran main
! program, which would otherwise replace xsim's. Modes (first argument):
!   segv      rank 2 writes through a null pointer
!   overflow  rank 1 recurses with 32 KiB of locals per call until its stack overflows
program fortran_crash
  implicit none
  call run()
contains
  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me
    character(len=16) :: mode
    integer, pointer :: p
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call get_command_argument(1, mode)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (mode == 'segv' .and. me == 2) then
      p => null_target()
      p = 42
    end if
    if (mode == 'overflow' .and. me == 1) print *, deep(100000)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Finalize(ierr)
  end subroutine run

  ! A null pointer the compiler cannot see through.
  function null_target() result(q)
    integer, pointer :: q
    q => null()
  end function null_target

  recursive function deep(n) result(s)
    integer, intent(in) :: n
    double precision :: s, a(4096)
    a = n
    s = a(n / 2 + 1)
    if (n > 0) s = s + deep(n - 1) * 0.5d0
  end function deep
end program fortran_crash
