! fortran_cart.f90 - Cartesian topologies from Fortran (`use mpi`) under xsim: dims_create (free and with a
! fixed dimension), cart_create (one periodic and one open dimension, no reordering), topo_test,
! cartdim_get, cart_get, cart_coords, cart_rank (with wrap-around), cart_shift (periodic and open, with
! MPI_PROC_NULL at the open ends) used for sendrecv, and cart_sub (rows and columns) with collectives on
! the results. Each rank checks its results and prints per-rank lines with its MPI_Wtime (cpu model none).
! State lives in the recursive subroutine `run` (virtual ranks share globals and SAVEd variables).
! Rank 0 prints all ranks' lines at the end (gathered with MPI_Gather of MPI_CHARACTER), in rank order.
program fortran_cart
  use fortran_test_util
  implicit none
  call run()
contains

  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me, np, cart, row, col, kind, nd, i, src, dst, val, rsize, rrank, s, csrc, cdst
    integer :: dims(2), d3(3), coords(2), c2(2), gdims(2), gcoords(2)
    integer :: st(MPI_STATUS_SIZE)
    logical :: periods(2), gper(2), remain(2)
    double precision :: t
    character(len=120) :: out(16)     ! this rank's output lines (printed by rank 0 at the end)
    integer :: nout

    call MPI_Init(ierr)
    out = ' '
    nout = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

    dims = 0
    call MPI_Dims_create(np, 2, dims, ierr)
    call check(dims(1) * dims(2) == np .and. dims(1) >= dims(2), me, 'dims_create (2-D)')
    d3 = [0, 1, 0]
    call MPI_Dims_create(np, 3, d3, ierr)
    call check(product(d3) == np .and. d3(2) == 1 .and. d3(1) >= d3(3), me, 'dims_create with a fixed dimension')

    periods = [.true., .false.]
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call MPI_Comm_rank(cart, i, ierr)
    call check(i == me, me, 'cart_create without reordering changed the rank')
    call MPI_Topo_test(cart, kind, ierr)
    call check(kind == MPI_CART, me, 'topo_test')
    call MPI_Topo_test(MPI_COMM_WORLD, kind, ierr)
    call check(kind == MPI_UNDEFINED, me, 'topo_test on MPI_COMM_WORLD')
    call MPI_Cartdim_get(cart, nd, ierr)
    call check(nd == 2, me, 'cartdim_get')
    call MPI_Cart_coords(cart, me, 2, coords, ierr)
    call check(coords(1) == me / dims(2) .and. coords(2) == modulo(me, dims(2)), me, 'cart_coords (row-major)')
    call MPI_Cart_get(cart, 2, gdims, gper, gcoords, ierr)
    call check(all(gdims == dims) .and. all(gper .eqv. periods) .and. all(gcoords == coords), me, 'cart_get')
    call MPI_Cart_rank(cart, coords, i, ierr)
    call check(i == me, me, 'cart_rank')
    c2 = [coords(1) + dims(1), coords(2)]                ! periodic dimension wraps around
    call MPI_Cart_rank(cart, c2, i, ierr)
    call check(i == me, me, 'cart_rank with a wrapped coordinate')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,1X,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': coords ', coords, ' of ', dims(1), 'x', &
      dims(2), ' t=', t

    ! periodic shift along dimension 0
    call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
    call check(src == modulo(coords(1) - 1, dims(1)) * dims(2) + coords(2), me, 'cart_shift periodic source')
    call check(dst == modulo(coords(1) + 1, dims(1)) * dims(2) + coords(2), me, 'cart_shift periodic dest')
    call MPI_Sendrecv(me, 1, MPI_INTEGER, dst, 1, val, 1, MPI_INTEGER, src, 1, cart, st, ierr)
    call check(val == src .and. st(MPI_SOURCE) == src, me, 'sendrecv along the periodic dimension')
    ! open dimension 1, shift by -1: MPI_PROC_NULL at the ends
    call MPI_Cart_shift(cart, 1, -1, src, dst, ierr)
    if (coords(2) == dims(2) - 1) then
      call check(src == MPI_PROC_NULL, me, 'cart_shift open source at the end')
    else
      call check(src == me + 1, me, 'cart_shift open source')
    end if
    if (coords(2) == 0) then
      call check(dst == MPI_PROC_NULL, me, 'cart_shift open dest at the end')
    else
      call check(dst == me - 1, me, 'cart_shift open dest')
    end if
    val = -1
    call MPI_Sendrecv(me, 1, MPI_INTEGER, dst, 2, val, 1, MPI_INTEGER, src, 2, cart, st, ierr)
    if (src == MPI_PROC_NULL) then
      call check(val == -1 .and. st(MPI_SOURCE) == MPI_PROC_NULL, me, 'receive from MPI_PROC_NULL')
    else
      call check(val == src, me, 'sendrecv along the open dimension')
    end if
    t = MPI_Wtime()
    nout = nout + 1
    ! MPI_PROC_NULL printed as -1 whatever its value (MPICH -1, Open MPI -2): the same output for both MPIs
    write(out(nout), '(A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': shift src ', merge(-1, src, src == MPI_PROC_NULL), &
      ' dst ', merge(-1, dst, dst == MPI_PROC_NULL), ' t=', t

    ! rows (keep dimension 1) and columns (keep dimension 0)
    remain = [.false., .true.]
    call MPI_Cart_sub(cart, remain, row, ierr)
    call MPI_Comm_size(row, rsize, ierr)
    call MPI_Comm_rank(row, rrank, ierr)
    call check(rsize == dims(2) .and. rrank == coords(2), me, 'cart_sub rows: size/rank')
    call MPI_Allreduce(me, s, 1, MPI_INTEGER, MPI_SUM, row, ierr)
    call check(s == dims(2) * dims(2) * coords(1) + dims(2) * (dims(2) - 1) / 2, me, 'allreduce over a row')
    remain = [.true., .false.]
    call MPI_Cart_sub(cart, remain, col, ierr)
    call MPI_Comm_size(col, rsize, ierr)
    call MPI_Comm_rank(col, rrank, ierr)
    call check(rsize == dims(1) .and. rrank == coords(1), me, 'cart_sub columns: size/rank')
    call MPI_Cartdim_get(col, nd, ierr)
    call check(nd == 1, me, 'cart_sub result is 1-D')
    call MPI_Cart_shift(col, 0, 2, csrc, cdst, ierr)   ! still periodic
    call check(csrc == modulo(rrank - 2, dims(1)) .and. cdst == modulo(rrank + 2, dims(1)), me, 'shift in column')
    call MPI_Bcast(val, 1, MPI_INTEGER, 0, col, ierr)
    call MPI_Allreduce(me, s, 1, MPI_INTEGER, MPI_MAX, col, ierr)
    call check(s == (dims(1) - 1) * dims(2) + coords(2), me, 'allreduce over a column')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': row sum/col max ', s, ' col rank ', rrank, ' t=', t

    call MPI_Comm_free(row, ierr)
    call MPI_Comm_free(col, ierr)
    call MPI_Comm_free(cart, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': cartesian ok t=', t
    call emit_all(out, me, np)
    call MPI_Finalize(ierr)
  end subroutine run
end program fortran_cart
