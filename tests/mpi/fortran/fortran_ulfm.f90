! fortran_ulfm: the ULFM calls from Fortran (mpif.h names MPIX_COMM_*, xsim's bindings in fortran/special.c;
! docs/resilience.md). Run with 4 ranks and -xsim-fault 1@1ms -xsim-cpu none (ethernet star: an agreement
! contribution costs 50.064 us). Every rank computes 2 ms (rank 1 fails at its next call), then agrees
! (flag 1: rank 1's failure is not acknowledged, so the call reports it; the flag stays 1), acknowledges the
! failure (one acked member) and shrinks to 3 ranks (at 2,050.064 + 50.064 us). Rank 0 of the new
! communicator gathers every survivor's results over it, prints them in rank order and revokes it; every
! survivor's barrier on it then fails (the others' when the revocation reaches them).
program fortran_ulfm
  use mpi
  use iso_c_binding, only: c_double
  implicit none
  interface
    subroutine xsim_compute(seconds) bind(C, name='xsim_compute')
      import :: c_double
      real(c_double), value :: seconds
    end subroutine xsim_compute
  end interface
  integer :: ierr, me, np, flag, rc, shrunk, ssize, srank, failed, nfailed, r, rc_barrier
  integer :: mine(5), all(5, 4)
  double precision :: t_shrink
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call xsim_compute(0.002d0)
  flag = 1
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag, rc)
  call MPIX_Comm_failure_ack(MPI_COMM_WORLD, ierr)
  call MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, failed, ierr)
  call MPI_Group_size(failed, nfailed, ierr)
  call MPIX_Comm_shrink(MPI_COMM_WORLD, shrunk, ierr)
  t_shrink = MPI_Wtime()
  call MPI_Comm_size(shrunk, ssize, ierr)
  call MPI_Comm_rank(shrunk, srank, ierr)
  mine = (/ me, flag, merge(1, 0, rc /= MPI_SUCCESS), nfailed, ssize /)
  call MPI_Gather(mine, 5, MPI_INTEGER, all, 5, MPI_INTEGER, 0, shrunk, ierr)
  call MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN, ierr)
  if (srank == 0) call MPIX_Comm_revoke(shrunk, ierr)  ! after the gather: the others wait in the barrier
  call MPI_Barrier(shrunk, rc_barrier)
  if (srank == 0) then
    do r = 1, ssize
      print '(A,I0,A,I0,A,I0,A,I0,A,I0)', 'rank ', all(1, r), ': agree flag ', all(2, r), ' error ', all(3, r), &
          ' acked ', all(4, r), ' shrunk to ', all(5, r)
    end do
    print '(A,F12.9,A,L1)', 'shrink done at ', t_shrink, ', barrier after revoke fails: ', rc_barrier /= MPI_SUCCESS
  end if
  call MPI_Finalize(ierr)
end program fortran_ulfm
