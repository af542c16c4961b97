! fortran_types.f90 - derived datatypes from Fortran through `include 'mpif.h'` under xsim:
! type_vector (a strided row of a column-major array), type_create_subarray, type_contiguous,
! type_create_struct (relative displacements + type_create_resized, and absolute addresses sent from
! MPI_BOTTOM), pack/unpack with MPI_PACKED, type_commit/type_free, type_size/type_get_extent.
! Each rank exchanges with its ring neighbours, checks every element and prints one line per check
! with its MPI_Wtime (cpu model "none"). State lives in the recursive subroutine `run` only.
! Rank 0 prints all ranks' lines at the end (gathered with MPI_Gather of MPI_CHARACTER), in rank order.
program fortran_types
  use fortran_test_util
  implicit none
  call run()
contains

  recursive subroutine run()
    implicit none
    include 'mpif.h'
    type particle
      integer :: id
      double precision :: x(3)
    end type particle
    integer, parameter :: m = 6, n = 5
    integer :: ierr, me, np, left, right, i, j, cnt, pos, psize, ival, k2
    integer :: st(MPI_STATUS_SIZE)
    integer :: vtype, stype, ctype, ptype, ptype0, btype, rtype
    integer :: sizes(2), subsizes(2), starts(2), blens(2), types(2)
    integer(kind=MPI_ADDRESS_KIND) :: lb, ext, disp(2), base, a1, a2
    double precision :: a(m, n), b(m, n), c(m, n), r(n), y(2), y2(2)
    integer :: iv(12), jv(12), kk
    type(particle) :: ps(4), pr(4)
    character :: pbuf(256)
    double precision :: dd(3), de(3)
    double precision :: t
    character(len=120) :: out(16)     ! this rank's output lines (printed by rank 0 at the end)
    integer :: nout

    call MPI_Init(ierr)
    out = ' '
    nout = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    left = modulo(me - 1, np)
    right = modulo(me + 1, np)
    do j = 1, n
      do i = 1, m
        a(i, j) = 100 * me + 10 * i + j
      end do
    end do

    ! 1. vector: row 3 of a (n elements, stride m) -> contiguous r on the right neighbour, and again into
    !    row 5 of b through the same type
    call MPI_Type_vector(n, 1, m, MPI_DOUBLE_PRECISION, vtype, ierr)
    call MPI_Type_commit(vtype, ierr)
    call MPI_Type_size(vtype, k2, ierr)
    call MPI_Type_get_extent(vtype, lb, ext, ierr)
    call check(k2 == 8 * n .and. lb == 0 .and. ext == 8 * ((n - 1) * m + 1), me, 'vector size/extent')
    r = -1
    call MPI_Sendrecv(a(3, 1), 1, vtype, right, 1, r, n, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, cnt, ierr)
    call check(cnt == n, me, 'vector: received count')
    do j = 1, n
      call check(r(j) == 100 * left + 30 + j, me, 'vector -> contiguous data')
    end do
    b = -1
    call MPI_Sendrecv(a(3, 1), 1, vtype, right, 2, b(5, 1), 1, vtype, left, 2, MPI_COMM_WORLD, st, ierr)
    do j = 1, n
      do i = 1, m
        if (i == 5) then
          call check(b(i, j) == 100 * left + 30 + j, me, 'vector -> vector data')
        else
          call check(b(i, j) == -1, me, 'vector receive wrote outside its row')
        end if
      end do
    end do
    call MPI_Type_free(vtype, ierr)
    call check(vtype == MPI_DATATYPE_NULL, me, 'type_free did not reset the handle')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F6.0,A,F12.9)') 'rank ', me, ': vector row ', r(1), ' t=', t

    ! 2. subarray: a(2:4, 3:4) on the left neighbour -> c(3:5, 1:2) here
    sizes = [m, n]
    subsizes = [3, 2]
    starts = [1, 2]
    call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, &
                                  stype, ierr)
    call MPI_Type_commit(stype, ierr)
    starts = [2, 0]
    call MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE_PRECISION, &
                                  rtype, ierr)
    call MPI_Type_commit(rtype, ierr)
    c = -1
    call MPI_Sendrecv(a, 1, stype, right, 3, c, 1, rtype, left, 3, MPI_COMM_WORLD, st, ierr)
    do j = 1, n
      do i = 1, m
        if (i >= 3 .and. i <= 5 .and. j <= 2) then
          call check(c(i, j) == 100 * left + 10 * (i - 1) + (j + 2), me, 'subarray data')
        else
          call check(c(i, j) == -1, me, 'subarray receive wrote outside the block')
        end if
      end do
    end do
    call MPI_Type_free(stype, ierr)
    call MPI_Type_free(rtype, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F6.0,A,F12.9)') 'rank ', me, ': subarray corner ', c(3, 1), ' t=', t

    ! 3. contiguous: 3 elements of a 4-integer type
    call MPI_Type_contiguous(4, MPI_INTEGER, ctype, ierr)
    call MPI_Type_commit(ctype, ierr)
    iv = [(1000 * me + i, i = 1, 12)]
    jv = -1
    call MPI_Sendrecv(iv, 3, ctype, right, 4, jv, 3, ctype, left, 4, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, ctype, cnt, ierr)
    call MPI_Get_count(st, MPI_INTEGER, k2, ierr)
    call check(cnt == 3 .and. k2 == 12, me, 'contiguous: get_count')
    call check(all(jv == [(1000 * left + i, i = 1, 12)]), me, 'contiguous data')
    call MPI_Type_free(ctype, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': contiguous last ', jv(12), ' t=', t

    ! 4a. struct with relative displacements, resized to the Fortran array stride
    do i = 1, 4
      ps(i)%id = 10 * me + i
      ps(i)%x = [me + 0.5d0 * i, -1d0 * i, 2d0 * me]
      pr(i)%id = -1
      pr(i)%x = -1
    end do
    call MPI_Get_address(ps(1)%id, base, ierr)
    call MPI_Get_address(ps(1)%x, a1, ierr)
    call MPI_Get_address(ps(2)%id, a2, ierr)
    blens = [1, 3]
    types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
    disp = [0_MPI_ADDRESS_KIND, a1 - base]
    call MPI_Type_create_struct(2, blens, disp, types, ptype0, ierr)
    call MPI_Type_create_resized(ptype0, 0_MPI_ADDRESS_KIND, a2 - base, ptype, ierr)
    call MPI_Type_commit(ptype, ierr)
    call MPI_Type_get_extent(ptype, lb, ext, ierr)
    call check(ext == a2 - base, me, 'resized struct extent')
    call MPI_Sendrecv(ps, 4, ptype, right, 5, pr, 4, ptype, left, 5, MPI_COMM_WORLD, st, ierr)
    do i = 1, 4
      call check(pr(i)%id == 10 * left + i, me, 'struct: integer member')
      call check(all(pr(i)%x == [left + 0.5d0 * i, -1d0 * i, 2d0 * left]), me, 'struct: double members')
    end do
    call MPI_Type_free(ptype, ierr)
    call MPI_Type_free(ptype0, ierr)

    ! 4b. struct of absolute addresses (an integer and two doubles), sent from and received at MPI_BOTTOM
    kk = 7 * me
    y = [1.25d0 * me, 3d0]
    call MPI_Get_address(kk, disp(1), ierr)
    call MPI_Get_address(y, disp(2), ierr)
    blens = [1, 2]
    call MPI_Type_create_struct(2, blens, disp, types, btype, ierr)
    call MPI_Type_commit(btype, ierr)
    ival = -1
    y2 = -1
    call MPI_Get_address(ival, disp(1), ierr)
    call MPI_Get_address(y2, disp(2), ierr)
    call MPI_Type_create_struct(2, blens, disp, types, rtype, ierr)
    call MPI_Type_commit(rtype, ierr)
    call MPI_Sendrecv(MPI_BOTTOM, 1, btype, right, 6, MPI_BOTTOM, 1, rtype, left, 6, MPI_COMM_WORLD, st, ierr)
    call check(ival == 7 * left .and. y2(1) == 1.25d0 * left .and. y2(2) == 3d0, me, 'MPI_BOTTOM struct')
    call MPI_Type_free(btype, ierr)
    call MPI_Type_free(rtype, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,1X,I0,A,F12.9)') 'rank ', me, ': struct ids ', pr(4)%id, ival, ' t=', t

    ! 5. pack/unpack: an integer count, then that many doubles, then one more integer
    call MPI_Pack_size(2, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
    call MPI_Pack_size(3, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, k2, ierr)
    psize = psize + k2
    call check(psize <= size(pbuf), me, 'pack_size')
    dd = [me * 1d0, me * 2d0, me * 3d0]
    pos = 0
    call MPI_Pack(3, 1, MPI_INTEGER, pbuf, size(pbuf), pos, MPI_COMM_WORLD, ierr)
    call MPI_Pack(dd, 3, MPI_DOUBLE_PRECISION, pbuf, size(pbuf), pos, MPI_COMM_WORLD, ierr)
    call MPI_Pack(me + 42, 1, MPI_INTEGER, pbuf, size(pbuf), pos, MPI_COMM_WORLD, ierr)
    call check(pos > 0 .and. pos <= psize, me, 'pack position')
    call MPI_Send(pbuf, pos, MPI_PACKED, right, 7, MPI_COMM_WORLD, ierr)
    pbuf = ' '
    call MPI_Recv(pbuf, size(pbuf), MPI_PACKED, left, 7, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_PACKED, cnt, ierr)
    call check(cnt == pos, me, 'packed message size')
    pos = 0
    call MPI_Unpack(pbuf, cnt, pos, k2, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call check(k2 == 3, me, 'unpacked count')
    de = -1
    call MPI_Unpack(pbuf, cnt, pos, de, k2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    call MPI_Unpack(pbuf, cnt, pos, ival, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call check(all(de == [left * 1d0, left * 2d0, left * 3d0]) .and. ival == left + 42, me, 'unpacked data')
    call check(pos == cnt, me, 'unpack consumed the whole message')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': unpacked ', ival, ' from ', cnt, ' bytes t=', t

    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': datatypes ok t=', t
    call emit_all(out, me, np)
    call MPI_Finalize(ierr)
  end subroutine run
end program fortran_types
