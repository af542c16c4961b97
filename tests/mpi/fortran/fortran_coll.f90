! fortran_coll.f90 - collectives from Fortran (`use mpi`) under xsim, with MPI_IN_PLACE wherever MPI
! allows it: allreduce, reduce (at the root), allgather, gather (at the root), scatterv (normal and
! in place at the root), alltoall, scan, plus bcast and barrier. Every rank checks its results exactly and
! prints one line per collective with its MPI_Wtime (cpu model "none").
! All state lives in the recursive subroutine `run` (virtual ranks share globals and SAVEd variables).
! Rank 0 prints all ranks' lines at the end (gathered with MPI_Gather of MPI_CHARACTER), in rank order.
program fortran_coll
  use fortran_test_util
  implicit none
  call run()
contains

  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me, np, i, j, root, s, n
    integer :: iv(3), idum(3)
    double precision :: dv(2)
    integer, allocatable :: ag(:), counts(:), displs(:), sbuf(:), rbuf(:), part(:)
    double precision :: t
    character(len=120) :: out(16)     ! this rank's output lines (printed by rank 0 at the end)
    integer :: nout

    call MPI_Init(ierr)
    out = ' '
    nout = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    s = np * (np - 1) / 2

    ! allreduce in place: integers (SUM) and doubles (MAX, MIN)
    iv = [me, 2 * me, 1]
    call MPI_Allreduce(MPI_IN_PLACE, iv, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(all_eq(iv, [s, 2 * s, np]), me, 'allreduce in place (sum)')
    dv = [0.5d0 * me, -0.25d0 * me]
    call MPI_Allreduce(MPI_IN_PLACE, dv, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    call check(dv(1) == 0.5d0 * (np - 1) .and. dv(2) == 0.0d0, me, 'allreduce in place (max)')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,3(1X,I0),A,F12.9)') 'rank ', me, ': allreduce', iv, ' t=', t

    ! reduce to root np-1, the root in place
    root = np - 1
    iv = [me + 1, 1, me * me]
    if (me == root) then
      call MPI_Reduce(MPI_IN_PLACE, iv, 3, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
      call check(all_eq(iv, [s + np, np, (np - 1) * np * (2 * np - 1) / 6]), me, 'reduce in place at root')
    else
      idum = -9
      call MPI_Reduce(iv, idum, 3, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
      call check(all(idum == -9), me, 'reduce wrote a non-root receive buffer')
      call check(all_eq(iv, [me + 1, 1, me * me]), me, 'reduce changed a non-root send buffer')
    end if
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,3(1X,I0),A,F12.9)') 'rank ', me, ': reduce', iv, ' t=', t

    ! bcast from rank 1 % np
    root = modulo(1, np)
    iv = -1
    if (me == root) iv = [11, 22, 33]
    call MPI_Bcast(iv, 3, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(all_eq(iv, [11, 22, 33]), me, 'bcast')

    ! allgather in place: two integers per rank
    allocate(ag(2 * np))
    ag = -1
    ag(2 * me + 1) = me
    ag(2 * me + 2) = 100 + me
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call check(all_eq(ag, [((100 * j + i, j = 0, 1), i = 0, np - 1)]), me, 'allgather in place')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': allgather sum ', sum(ag), ' t=', t

    ! gather to root 0, the root in place
    ag = -1
    if (me == 0) then
      ag(1:2) = [0, 100]
      call MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ag, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call check(all_eq(ag, [((100 * j + i, j = 0, 1), i = 0, np - 1)]), me, 'gather in place at root')
    else
      call MPI_Gather([me, 100 + me], 2, MPI_INTEGER, ag, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    end if
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': gather t=', t
    deallocate(ag)

    ! scatterv from root 0: rank i gets i+1 integers (10*i + k); first normal, then the root in place
    allocate(counts(np), displs(np))
    counts = [(i + 1, i = 0, np - 1)]
    displs(1) = 0
    do i = 2, np
      displs(i) = displs(i - 1) + counts(i - 1)
    end do
    n = sum(counts)
    allocate(sbuf(n), rbuf(me + 1))
    sbuf = -1
    if (me == 0) then
      do i = 0, np - 1
        sbuf(displs(i + 1) + 1:displs(i + 1) + counts(i + 1)) = [(10 * i + j, j = 1, i + 1)]
      end do
    end if
    rbuf = -1
    call MPI_Scatterv(sbuf, counts, displs, MPI_INTEGER, rbuf, me + 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call check(all_eq(rbuf, [(10 * me + j, j = 1, me + 1)]), me, 'scatterv')
    if (me == 0) then
      sbuf(1) = -5
      call MPI_Scatterv(sbuf, counts, displs, MPI_INTEGER, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0, &
                        MPI_COMM_WORLD, ierr)
      call check(sbuf(1) == -5, me, 'scatterv in place changed the root''s own block')
    else
      rbuf = -1
      call MPI_Scatterv(sbuf, counts, displs, MPI_INTEGER, rbuf, me + 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call check(all_eq(rbuf, [(10 * me + j, j = 1, me + 1)]), me, 'scatterv (root in place)')
    end if
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': scatterv got ', sum(rbuf), ' t=', t
    deallocate(counts, displs, sbuf, rbuf)

    ! alltoall: rank me sends 1000*me + j to rank j
    allocate(sbuf(np), rbuf(np))
    sbuf = [(1000 * me + j, j = 0, np - 1)]
    rbuf = -1
    call MPI_Alltoall(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call check(all_eq(rbuf, [(1000 * j + me, j = 0, np - 1)]), me, 'alltoall')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': alltoall sum ', sum(rbuf), ' t=', t
    deallocate(sbuf, rbuf)

    ! scan: inclusive prefix sums, then in place
    allocate(part(2))
    iv(1:2) = [me + 1, 1]
    call MPI_Scan(iv, part, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(all_eq(part, [(me + 1) * (me + 2) / 2, me + 1]), me, 'scan')
    call MPI_Scan(MPI_IN_PLACE, part, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(part(2) == (me + 1) * (me + 2) / 2, me, 'scan in place')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,2(1X,I0),A,F12.9)') 'rank ', me, ': scan', part, ' t=', t
    deallocate(part)

    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': collectives ok t=', t
    call emit_all(out, me, np)
    call MPI_Finalize(ierr)
  end subroutine run

  logical function all_eq(a, b)
    integer, intent(in) :: a(:), b(:)
    all_eq = size(a) == size(b)
    if (all_eq) all_eq = all(a == b)
  end function all_eq
end program fortran_coll
