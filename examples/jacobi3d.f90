! jacobi3d.f90 - 3-D Jacobi solver for the 7-point Poisson problem, Fortran 90 + MPI (`use mpi`).
!
! Solves A u = f on an nx x ny x nz grid with zero Dirichlet boundaries, A u = 6 u(p) - (sum of the 6
! neighbours). f = A u* for a manufactured u* (a polynomial that vanishes on the boundary), so the discrete
! solution is u* exactly. The ranks form a non-periodic 3-D grid (MPI_Dims_create, MPI_Cart_create,
! MPI_Cart_coords, MPI_Cart_shift); each owns a block with one layer of halo cells. Halos are exchanged
! with MPI_Irecv/MPI_Isend/MPI_Waitall of derived datatypes: subarray types for the x faces, vector
! types for the y faces (lz blocks of lx) and the z faces (ly blocks of lx). Every `nchk` iterations the
! residual norm ||f - A u|| is combined with MPI_Allreduce.
!
! Checks (any failure prints FAILED and aborts): the Jacobi error and residual of this symmetric problem
! shrink at least by rho = (cos(pi/(nx+1)) + cos(pi/(ny+1)) + cos(pi/(nz+1))) / 3 per iteration, so after k
! iterations ||u_k - u*|| <= rho^k ||u*|| and ||f - A u_k|| <= rho^k ||f|| must hold; with tol > 0 the
! residual must reach tol ||f|| within max_it iterations (tol = 0 runs exactly max_it, for timing).
! Timed: the iterations (after a barrier), the largest per-rank MPI_Wtime difference.
!
!   jacobi3d [nx ny nz] [max_it] [tol]      global grid (default 24 24 24), cap 2000, tol 1e-6
!   jacobi3d -l lx ly lz [max_it] [tol]     lx x ly x lz cells per rank (weak scaling)
!
! All state lives in the recursive subroutine `run` and its arguments: virtual ranks under xsim share
! globals, SAVEd and module variables. Module constants are fine.
module jacobi3d_const
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: nchk = 10          ! iterations between residual checks
  real(dp), parameter :: pi = 3.14159265358979323846_dp
end module jacobi3d_const

program jacobi3d
  implicit none
  call run()
contains

  recursive subroutine run()
    use mpi
    use jacobi3d_const
    implicit none
    integer :: ierr, me, np, cart, i, j, k, it, max_it, cur, nxt, nreq, d, bad
    integer :: dims(3), coords(3), gn(3), ln(3), off(3), lo(3), hi(3), lsz(3)
    logical :: periods(3), per_rank, converged
    integer :: xt(4), ytype, ztype, req(12), sts(MPI_STATUS_SIZE, 12)
    integer :: sizes(3), subsizes(3), starts(3), xstart(4)
    real(dp), allocatable, asynchronous :: u(:, :, :, :)
    real(dp), allocatable :: f(:, :, :)
    real(dp) :: tol, rho, t0, t, tmax, sums(2), res, err, fnorm, unorm, lres
    character(len=64) :: arg

    call MPI_Init(ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)

    ! arguments
    gn = 24
    max_it = 2000
    tol = 1d-6
    per_rank = .false.
    bad = 0
    i = 1
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      if (arg == '-h' .or. arg == '--help') then
        if (me == 0) call usage()
        call MPI_Finalize(ierr)
        return
      end if
      if (arg == '-l') then
        per_rank = .true.
        i = 2
      end if
    end if
    if (per_rank .or. command_argument_count() >= 3) then
      do d = 1, 3
        call int_arg(i + d - 1, 1, 100000, gn(d), bad)
      end do
      i = i + 3
    else if (command_argument_count() >= 1) then
      bad = 1
    end if
    if (command_argument_count() >= i) call int_arg(i, 1, 100000000, max_it, bad)
    if (command_argument_count() >= i + 1) then
      call get_command_argument(i + 1, arg)
      read(arg, *, iostat=k) tol
      if (k /= 0 .or. .not. (tol >= 0 .and. tol < 1)) bad = 1
    end if
    if (command_argument_count() > i + 1) bad = 1

    ! process grid and my block
    dims = 0
    call MPI_Dims_create(np, 3, dims, ierr)
    if (per_rank) gn = gn * dims
    if (bad == 0 .and. any(gn < dims)) then
      if (me == 0) write(0, '(A)') 'jacobi3d: the grid has fewer cells than the process grid in some dimension'
      bad = 1
    end if
    if (bad /= 0) then
      if (me == 0) call usage()
      call MPI_Finalize(ierr)
      stop 2, quiet=.true.
    end if
    periods = .false.
    call MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, .true., cart, ierr)
    call MPI_Comm_rank(cart, me, ierr)
    call MPI_Cart_coords(cart, me, 3, coords, ierr)
    do d = 1, 3
      call MPI_Cart_shift(cart, d - 1, 1, lo(d), hi(d), ierr)
      call block(gn(d), dims(d), coords(d), off(d), ln(d))
    end do

    ! fields: u(0:lx+1, 0:ly+1, 0:lz+1, 0:1) (two iterates), f on the owned cells; u* is the formula
    allocate(u(0:ln(1) + 1, 0:ln(2) + 1, 0:ln(3) + 1, 0:1), f(ln(1), ln(2), ln(3)))
    u = 0
    do k = 1, ln(3)
      do j = 1, ln(2)
        do i = 1, ln(1)
          f(i, j, k) = 6 * ustar(off + [i, j, k], gn) &
            - ustar(off + [i - 1, j, k], gn) - ustar(off + [i + 1, j, k], gn) &
            - ustar(off + [i, j - 1, k], gn) - ustar(off + [i, j + 1, k], gn) &
            - ustar(off + [i, j, k - 1], gn) - ustar(off + [i, j, k + 1], gn)
        end do
      end do
    end do
    sums = [sum(f**2), 0.0_dp]
    do k = 1, ln(3)
      do j = 1, ln(2)
        do i = 1, ln(1)
          sums(2) = sums(2) + ustar(off + [i, j, k], gn)**2
        end do
      end do
    end do
    call MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
    fnorm = sqrt(sums(1))
    unorm = sqrt(sums(2))

    ! face datatypes: x faces as subarrays of one iterate (send low, receive low, send high, receive high),
    ! y and z faces as vectors used from the face's first cell
    lsz = ln + 2
    sizes = lsz
    subsizes = [1, ln(2), ln(3)]
    xstart = [1, 0, ln(1), ln(1) + 1]
    do d = 1, 4
      starts = [xstart(d), 1, 1]
      call MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, &
                                    xt(d), ierr)
      call MPI_Type_commit(xt(d), ierr)
    end do
    call MPI_Type_vector(ln(3), ln(1), lsz(1) * lsz(2), MPI_DOUBLE_PRECISION, ytype, ierr)
    call MPI_Type_commit(ytype, ierr)
    call MPI_Type_vector(ln(2), ln(1), lsz(1), MPI_DOUBLE_PRECISION, ztype, ierr)
    call MPI_Type_commit(ztype, ierr)

    rho = (cos(pi / (gn(1) + 1)) + cos(pi / (gn(2) + 1)) + cos(pi / (gn(3) + 1))) / 3
    call MPI_Barrier(cart, ierr)
    t0 = MPI_Wtime()
    it = 0
    converged = .false.
    res = fnorm
    do
      cur = mod(it, 2)
      nxt = 1 - cur
      ! halo exchange of the current iterate (a neighbour MPI_PROC_NULL keeps the zero boundary)
      nreq = 0
      call MPI_Irecv(u(0, 0, 0, cur), 1, xt(2), lo(1), 11, cart, req(nreq + 1), ierr)
      call MPI_Irecv(u(0, 0, 0, cur), 1, xt(4), hi(1), 10, cart, req(nreq + 2), ierr)
      call MPI_Irecv(u(1, 0, 1, cur), 1, ytype, lo(2), 21, cart, req(nreq + 3), ierr)
      call MPI_Irecv(u(1, ln(2) + 1, 1, cur), 1, ytype, hi(2), 20, cart, req(nreq + 4), ierr)
      call MPI_Irecv(u(1, 1, 0, cur), 1, ztype, lo(3), 31, cart, req(nreq + 5), ierr)
      call MPI_Irecv(u(1, 1, ln(3) + 1, cur), 1, ztype, hi(3), 30, cart, req(nreq + 6), ierr)
      call MPI_Isend(u(0, 0, 0, cur), 1, xt(1), lo(1), 10, cart, req(nreq + 7), ierr)
      call MPI_Isend(u(0, 0, 0, cur), 1, xt(3), hi(1), 11, cart, req(nreq + 8), ierr)
      call MPI_Isend(u(1, 1, 1, cur), 1, ytype, lo(2), 20, cart, req(nreq + 9), ierr)
      call MPI_Isend(u(1, ln(2), 1, cur), 1, ytype, hi(2), 21, cart, req(nreq + 10), ierr)
      call MPI_Isend(u(1, 1, 1, cur), 1, ztype, lo(3), 30, cart, req(nreq + 11), ierr)
      call MPI_Isend(u(1, 1, ln(3), cur), 1, ztype, hi(3), 31, cart, req(nreq + 12), ierr)
      call MPI_Waitall(12, req, sts, ierr)

      if (mod(it, nchk) == 0 .or. it == max_it) then
        lres = 0
        do k = 1, ln(3)
          do j = 1, ln(2)
            do i = 1, ln(1)
              lres = lres + (f(i, j, k) - 6 * u(i, j, k, cur) + u(i - 1, j, k, cur) + u(i + 1, j, k, cur) &
                + u(i, j - 1, k, cur) + u(i, j + 1, k, cur) + u(i, j, k - 1, cur) + u(i, j, k + 1, cur))**2
            end do
          end do
        end do
        call MPI_Allreduce(lres, res, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
        res = sqrt(res)
        if (tol > 0 .and. res <= tol * fnorm) then
          converged = .true.
          exit
        end if
        if (it == max_it) exit
      end if

      do k = 1, ln(3)
        do j = 1, ln(2)
          do i = 1, ln(1)
            u(i, j, k, nxt) = (f(i, j, k) + u(i - 1, j, k, cur) + u(i + 1, j, k, cur) + u(i, j - 1, k, cur) &
              + u(i, j + 1, k, cur) + u(i, j, k - 1, cur) + u(i, j, k + 1, cur)) / 6
          end do
        end do
      end do
      it = it + 1
    end do
    t = MPI_Wtime() - t0
    call MPI_Reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, cart, ierr)

    ! error against u*
    lres = 0
    do k = 1, ln(3)
      do j = 1, ln(2)
        do i = 1, ln(1)
          lres = lres + (u(i, j, k, cur) - ustar(off + [i, j, k], gn))**2
        end do
      end do
    end do
    call MPI_Allreduce(lres, err, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
    err = sqrt(err)

    if (me == 0) then
      if (tol > 0 .and. .not. converged) call fail('no convergence within the iteration cap')
      if (.not. (err <= rho**it * unorm * (1 + 1d-9) + 1d-13)) call fail('error above rho^k ||u*||')
      if (.not. (res <= rho**it * fnorm * (1 + 1d-9) + 1d-13)) call fail('residual above rho^k ||f||')
      write(*, '(A,I0,A,I0,A,I0,A,I0,A,I0,A,I0,A,I0,A,I0,A,ES10.3,A,ES10.3,A)') 'jacobi3d: ', np, ' ranks (', &
        dims(1), 'x', dims(2), 'x', dims(3), '), grid ', gn(1), 'x', gn(2), 'x', gn(3), ', ', it, &
        ' iterations, relative residual ', res / fnorm, ', relative error ', err / unorm, ' ok'
      write(*, '(A,A)') 'jacobi3d: virtual time ', seconds(tmax)
      if (it > 0) write(*, '(A,A)') 'jacobi3d: time per iteration ', seconds(tmax / it)
    end if

    do d = 1, 4
      call MPI_Type_free(xt(d), ierr)
    end do
    call MPI_Type_free(ytype, ierr)
    call MPI_Type_free(ztype, ierr)
    call MPI_Comm_free(cart, ierr)
    deallocate(u, f)
    call MPI_Finalize(ierr)
  end subroutine run

  ! The manufactured solution at global cell p (1..n per dimension; 0 and n+1 are the boundary, where it is 0).
  pure real(kind(1.0d0)) function ustar(p, n)
    integer, intent(in) :: p(3), n(3)
    real(kind(1.0d0)) :: x, y, z
    x = real(p(1), kind(1.0d0)) / (n(1) + 1)
    y = real(p(2), kind(1.0d0)) / (n(2) + 1)
    z = real(p(3), kind(1.0d0)) / (n(3) + 1)
    ustar = 64 * x * (1 - x) * y * (1 - y) * z * (1 - z) * (1 + x + 2 * y)
  end function ustar

  ! A time as %.9f would print it (F0.9 drops the leading zero).
  function seconds(t) result(s)
    real(kind(1.0d0)), intent(in) :: t
    character(len=:), allocatable :: s
    character(len=32) :: buf
    write(buf, '(F32.9)') t
    s = trim(adjustl(buf))
  end function seconds

  ! Block `idx` (0-based) of `parts` over n cells: offset (cells before it) and length.
  pure subroutine block(n, parts, idx, offset, length)
    integer, intent(in) :: n, parts, idx
    integer, intent(out) :: offset, length
    offset = idx * (n / parts) + min(idx, mod(n, parts))
    length = n / parts
    if (idx < mod(n, parts)) length = length + 1
  end subroutine block

  subroutine int_arg(pos, lo, hi, val, bad)
    integer, intent(in) :: pos, lo, hi
    integer, intent(inout) :: val, bad
    character(len=64) :: arg
    integer :: v, ios
    call get_command_argument(pos, arg)
    read(arg, *, iostat=ios) v
    if (ios /= 0 .or. v < lo .or. v > hi .or. verify(trim(arg), '0123456789') /= 0) then
      bad = 1
    else
      val = v
    end if
  end subroutine int_arg

  subroutine usage()
    write(0, '(A)') 'usage: jacobi3d [nx ny nz] [max_it] [tol]  |  jacobi3d -l lx ly lz [max_it] [tol]'
    write(0, '(A)') '  global grid (default 24 24 24) or cells per rank (-l); iteration cap (default 2000);'
    write(0, '(A)') '  relative residual target in [0, 1) (default 1e-6; 0 runs exactly max_it iterations)'
  end subroutine usage

  subroutine fail(what)
    use mpi
    character(len=*), intent(in) :: what
    integer :: ierr
    write(0, '(A,A)') 'FAILED: ', what
    flush(0)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail

end program jacobi3d
