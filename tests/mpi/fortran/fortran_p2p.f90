! fortran_p2p.f90 - point-to-point from Fortran (`use mpi`) under xsim: send/recv with an exact virtual
! arrival time, isend/irecv/waitall with a real status array and with MPI_STATUSES_IGNORE, sendrecv,
! probe + get_count over MPI_ANY_SOURCE/MPI_ANY_TAG, and a wildcard receive. Needs at least 2 ranks.
! Every rank checks its own data and prints one line per check with its MPI_Wtime (cpu model "none").
! All state lives in the recursive subroutine `run` (virtual ranks share globals and SAVEd variables).
! Rank 0 prints all ranks' lines at the end (gathered with MPI_Gather of MPI_CHARACTER), in rank order.
program fortran_p2p
  use fortran_test_util
  implicit none
  call run()
contains

  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me, np, left, right, i, k, src, tag, cnt, nfrom
    integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4), req(4)
    integer :: ibuf(4), sval, rval
    double precision, allocatable :: dbuf(:)
    integer, allocatable :: ivar(:)
    character(len=256) :: order
    double precision :: t
    character(len=120) :: out(16)     ! this rank's output lines (printed by rank 0 at the end)
    integer :: nout

    call MPI_Init(ierr)
    out = ' '
    nout = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    call check(np >= 2, me, 'needs at least 2 ranks')

    ! 1. send/recv of 100 doubles as the very first event: arrives at 2 x 25 us + 800 B x 8 ns = 56.4 us
    allocate(dbuf(100))
    if (me == 0) then
      dbuf = [(1.5d0 * i, i = 1, 100)]
      call MPI_Send(dbuf, 100, MPI_DOUBLE_PRECISION, 1, 7, MPI_COMM_WORLD, ierr)
    else if (me == 1) then
      dbuf = 0
      call MPI_Recv(dbuf, 100, MPI_DOUBLE_PRECISION, 0, 7, MPI_COMM_WORLD, st, ierr)
      t = MPI_Wtime()
      call MPI_Get_count(st, MPI_DOUBLE_PRECISION, cnt, ierr)
      call check(st(MPI_SOURCE) == 0 .and. st(MPI_TAG) == 7 .and. cnt == 100, me, 'send/recv status')
      call check(all(dbuf == [(1.5d0 * i, i = 1, 100)]), me, 'send/recv data')
      call check(abs(t - 56.4d-6) < 1d-12, me, 'send/recv arrival time is not 56.4 us')
      nout = nout + 1
      write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': recv ', cnt, ' doubles from 0 at t=', t
    end if
    deallocate(dbuf)

    ! 2. ring exchange with isend/irecv/waitall and a real status array
    left = modulo(me - 1, np)
    right = modulo(me + 1, np)
    ibuf = -1
    call MPI_Irecv(ibuf(1), 1, MPI_INTEGER, left, 21, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(ibuf(2), 1, MPI_INTEGER, right, 22, MPI_COMM_WORLD, req(2), ierr)
    ibuf(3) = 1000 + me
    ibuf(4) = 2000 + me
    call MPI_Isend(ibuf(3), 1, MPI_INTEGER, right, 21, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(ibuf(4), 1, MPI_INTEGER, left, 22, MPI_COMM_WORLD, req(4), ierr)
    sts = -7
    call MPI_Waitall(4, req, sts, ierr)
    call check(all(req == MPI_REQUEST_NULL), me, 'waitall did not free the requests')
    call check(ibuf(1) == 1000 + left .and. ibuf(2) == 2000 + right, me, 'isend/irecv data')
    call check(sts(MPI_SOURCE, 1) == left .and. sts(MPI_TAG, 1) == 21, me, 'status(:,1)')
    call check(sts(MPI_SOURCE, 2) == right .and. sts(MPI_TAG, 2) == 22, me, 'status(:,2)')
    call MPI_Get_count(sts(:, 2), MPI_INTEGER, cnt, ierr)
    call check(cnt == 1, me, 'get_count on status(:,2)')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': waitall got ', ibuf(1), ' ', ibuf(2), ' t=', t

    ! 3. the same with MPI_STATUSES_IGNORE (and two values per message)
    ibuf = [-1, -1, me, 3 * me]
    call MPI_Irecv(ibuf(1), 2, MPI_INTEGER, left, 23, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(ibuf(3), 2, MPI_INTEGER, right, 23, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call check(ibuf(1) == left .and. ibuf(2) == 3 * left, me, 'waitall with MPI_STATUSES_IGNORE')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': statuses_ignore got ', ibuf(2), ' t=', t

    ! 4. sendrecv: shift by 3
    k = min(3, np - 1)
    sval = 10 * me
    rval = -1
    call MPI_Sendrecv(sval, 1, MPI_INTEGER, modulo(me + k, np), 31, &
                      rval, 1, MPI_INTEGER, modulo(me - k, np), 31, MPI_COMM_WORLD, st, ierr)
    call check(rval == 10 * modulo(me - k, np) .and. st(MPI_SOURCE) == modulo(me - k, np), me, 'sendrecv')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': sendrecv got ', rval, ' t=', t

    ! 5. probe + get_count with MPI_ANY_SOURCE/MPI_ANY_TAG: rank r > 0 sends r+1 integers to rank 0
    if (me == 0) then
      order = ''
      do i = 1, np - 1
        call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
        src = st(MPI_SOURCE)
        tag = st(MPI_TAG)
        call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
        call check(src >= 1 .and. src < np .and. tag == 100 + src .and. cnt == src + 1, me, 'probe status')
        allocate(ivar(cnt))
        call MPI_Recv(ivar, cnt, MPI_INTEGER, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(ivar == [(1000 * src + k, k = 1, cnt)]), me, 'probed message data')
        deallocate(ivar)
        write(order(len_trim(order) + 1:), '(1X,I0)') src
      end do
      t = MPI_Wtime()
      nout = nout + 1
      write(out(nout), '(A,A,A,F12.9)') 'rank 0: probed sources', trim(order), ' t=', t
    else
      allocate(ivar(me + 1))
      ivar = [(1000 * me + k, k = 1, me + 1)]
      call MPI_Send(ivar, me + 1, MPI_INTEGER, 0, 100 + me, MPI_COMM_WORLD, ierr)
      deallocate(ivar)
    end if

    ! (the barrier keeps section 6's messages out of rank 0's wildcard probes)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)

    ! 6. wildcard receive: everyone sends to its right neighbour; the receive names no source, no tag
    sval = 7 * me
    call MPI_Isend(sval, 1, MPI_INTEGER, right, 40 + modulo(me, 5), MPI_COMM_WORLD, req(1), ierr)
    call MPI_Recv(rval, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    nfrom = st(MPI_SOURCE)
    call check(nfrom == left .and. st(MPI_TAG) == 40 + modulo(left, 5) .and. rval == 7 * left, me, 'any_source')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': any_source from ', nfrom, ' t=', t

    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': p2p ok t=', t
    call emit_all(out, me, np)
    call MPI_Finalize(ierr)
  end subroutine run
end program fortran_p2p
