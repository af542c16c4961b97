! fortran_test_util.f90 - helpers shared by the Fortran MPI test programs (compiled into each of them).
!   emit_all(out, me, np)  rank 0 prints every rank's non-blank lines in rank order (lines written by several
!                          native processes could be cut and interleaved by the launcher); collective
!   check(ok, me, what)    when .not. ok: prints "FAILED: rank ME: WHAT" on stderr and aborts the job
module fortran_test_util
  implicit none
  private
  public :: emit_all, check
contains
  subroutine emit_all(out, me, np)
    use mpi
    character(len=*), intent(in) :: out(:)
    integer, intent(in) :: me, np
    character(len=len(out)), allocatable :: lines(:)
    integer :: ierr, i
    allocate(lines(size(out) * merge(np, 1, me == 0)))
    call MPI_Gather(out, len(out) * size(out), MPI_CHARACTER, lines, len(out) * size(out), MPI_CHARACTER, 0, &
                    MPI_COMM_WORLD, ierr)
    if (me == 0) then
      do i = 1, size(lines)
        if (len_trim(lines(i)) > 0) print '(A)', trim(lines(i))
      end do
    end if
    deallocate(lines)
  end subroutine emit_all

  subroutine check(ok, me, what)
    use mpi
    logical, intent(in) :: ok
    integer, intent(in) :: me
    character(len=*), intent(in) :: what
    integer :: ierr
    if (.not. ok) then
      write(0, '(A,I0,A,A)') 'FAILED: rank ', me, ': ', what
      flush(0)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
end module fortran_test_util
