! fortran_units: every rank's Fortran units are its own under xsim (docs/privatization.md), although the ranks
! of a native process share libgfortran. Files go to the current directory and are deleted at the end.
! 1. Every rank opens unit 10 on a file named after its rank and writes its lines with a barrier after each,
!    so that the other ranks' statements on their unit 10 come in between; INQUIREs unit 10 and its file (its
!    own number 10), and another rank's file (not connected for this rank); closes, reopens and reads its
!    lines back. It writes to unit 20 + rank without an OPEN, which opens `fort.<20 + rank>`. Rank 0 prints
!    every rank's verdict (and deletes what the ranks' files left behind where the checks failed).
! 2. The ranks print their final line in turn, highest rank first, each closing unit 6 after it: every line
!    but the first is printed after another rank's CLOSE(6), and must still reach stdout, not a file `fort.6`.
!    Rank 0, the last, says whether `fort.6` exists (and echoes and deletes it if it does).
! Ends with exit code 1 if any check failed.
program fortran_units
  use mpi
  implicit none
  integer, parameter :: nlines = 4
  integer :: ierr, me, np, r, i, ios, n, bad, anybad
  integer, allocatable :: verdicts(:)
  character(len=80) :: mine, other, line, want, name
  logical :: op, ex
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  write (mine, '(A,I0,A)') 'fortran_units.', me, '.txt'
  write (other, '(A,I0,A)') 'fortran_units.', mod(me + 1, np), '.txt'
  bad = 0

  ! 1. unit 10, a file of the rank's own
  open (10, file=trim(mine), status='replace', action='readwrite', iostat=ios)
  if (ios /= 0) bad = ior(bad, 1)
  do i = 1, nlines
    write (10, '(A,I0,A,I0)') 'rank ', me, ' line ', i
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  inquire (unit=10, number=n, opened=op, name=name)
  if (.not. op .or. n /= 10 .or. index(name, trim(mine)) == 0) bad = ior(bad, 2)
  inquire (file=trim(mine), number=n, opened=op)
  if (.not. op .or. n /= 10) bad = ior(bad, 4)
  inquire (file=trim(other), number=n, opened=op)  ! the next rank's: connected in its process, not here
  if (op .or. n /= -1) bad = ior(bad, 8)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  close (10)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  open (10, file=trim(mine), status='old', action='read', iostat=ios)
  if (ios /= 0) bad = ior(bad, 1)
  do i = 1, nlines
    read (10, '(A)', iostat=ios) line
    write (want, '(A,I0,A,I0)') 'rank ', me, ' line ', i
    if (ios /= 0 .or. line /= want) bad = ior(bad, 16)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  read (10, '(A)', iostat=ios) line
  if (ios == 0) bad = ior(bad, 16)  ! a line too many: another rank's
  close (10, status='delete')

  ! unit 20 + rank, opened by its first WRITE
  write (20 + me, '(A,I0)') 'implicit ', me
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  inquire (unit=20 + me, number=n, opened=op)
  if (.not. op .or. n /= 20 + me) bad = ior(bad, 32)
  close (20 + me)
  write (name, '(A,I0)') 'fort.', 20 + me
  inquire (file=trim(name), exist=ex)
  if (.not. ex) bad = ior(bad, 32)
  if (ex) then
    open (20 + me, file=trim(name), status='old')
    close (20 + me, status='delete')
  end if

  allocate (verdicts(np))
  call MPI_Gather(bad, 1, MPI_INTEGER, verdicts, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    do r = 0, np - 1  ! what shared units left behind
      write (name, '(A,I0,A)') 'fortran_units.', r, '.txt'
      inquire (file=trim(name), exist=ex)
      if (ex) then
        open (98, file=trim(name), status='old')
        close (98, status='delete')
      end if
    end do
    do r = 0, np - 1
      if (verdicts(r + 1) == 0) then
        print '(A,I0,A)', 'rank ', r, ': unit 10 and unit 2x its own: ok'
      else
        print '(A,I0,A,I0)', 'rank ', r, ': units shared with other ranks: FAILED, checks ', verdicts(r + 1)
      end if
    end do
  end if
  deallocate (verdicts)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! 2. CLOSE(6) by every rank, in turn
  do r = np - 1, 0, -1
    if (r == me) then
      if (me == 0) then
        inquire (file='fort.6', exist=ex)
        if (ex) then
          bad = ior(bad, 64)
          open (99, file='fort.6', status='old', action='read')
          do
            read (99, '(A)', iostat=ios) line
            if (ios /= 0) exit
            print '(A,A)', 'lost to fort.6: ', trim(line)
          end do
          close (99, status='delete')
        end if
        print '(A,I0,A,I0,A,A)', 'rank ', me, ': final line, after ', np - 1 - me, ' CLOSE(6) by other ranks, ', &
          trim(merge('no fort.6   ', 'fort.6 found', .not. ex))
      else
        print '(A,I0,A,I0,A)', 'rank ', me, ': final line, after ', np - 1 - me, ' CLOSE(6) by other ranks'
      end if
      close (6, iostat=ios)
      if (ios /= 0) bad = ior(bad, 128)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_Allreduce(bad, anybad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (anybad /= 0) stop 1
end program fortran_units
