! fortran_comm.f90 - communicators from Fortran (`use mpi`) under xsim: comm_split (colours and reversed
! keys), comm_dup (message isolation from the parent), comm_compare, comm_free, and handle conversion
! with a C helper (fortran_comm_helper.c): Fortran handles used from C through MPI_Comm_f2c, and a
! communicator created in C used from Fortran through MPI_Comm_c2f. Each rank checks its results and prints
! one line per check with its MPI_Wtime (cpu model "none"). State lives in the recursive subroutine `run`.
! Rank 0 prints all ranks' lines at the end (gathered with MPI_Gather of MPI_CHARACTER), in rank order.
program fortran_comm
  use fortran_test_util
  use iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function fhelper_world_c2f() bind(C, name='fhelper_world_c2f')
      import :: c_int
    end function fhelper_world_c2f
    integer(c_int) function fhelper_rank_sum(fcomm, rank, size) bind(C, name='fhelper_rank_sum')
      import :: c_int
      integer(c_int), value :: fcomm
      integer(c_int) :: rank, size
    end function fhelper_rank_sum
    integer(c_int) function fhelper_split_parity(fcomm) bind(C, name='fhelper_split_parity')
      import :: c_int
      integer(c_int), value :: fcomm
    end function fhelper_split_parity
    integer(c_int) function fhelper_free(fcomm) bind(C, name='fhelper_free')
      import :: c_int
      integer(c_int) :: fcomm
    end function fhelper_free
  end interface
  call run()
contains

  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me, np, color, sub, subme, subnp, sum, dup, res, val, i, cc, crank, csize, csum
    integer :: st(MPI_STATUS_SIZE)
    double precision :: t
    character(len=120) :: out(16)     ! this rank's output lines (printed by rank 0 at the end)
    integer :: nout

    call MPI_Init(ierr)
    out = ' '
    nout = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    call check(np >= 2, me, 'needs at least 2 ranks')

    ! split into colours me mod 3, ranks in reverse order of world rank
    color = modulo(me, 3)
    call MPI_Comm_split(MPI_COMM_WORLD, color, -me, sub, ierr)
    call MPI_Comm_rank(sub, subme, ierr)
    call MPI_Comm_size(sub, subnp, ierr)
    call check(subnp == (np - 1 - color) / 3 + 1, me, 'split: size')
    call check(subme == (np - 1 - color) / 3 - me / 3, me, 'split: reversed rank order')
    call MPI_Allreduce(me, sum, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
    call check(sum == sum_of_colour(color, np), me, 'split: allreduce over the colour')
    ! the same communicator seen from C
    csum = fhelper_rank_sum(sub, crank, csize)
    call check(crank == subme .and. csize == subnp .and. csum == subnp * (subnp - 1) / 2, me, 'f2c on split comm')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': split colour ', color, ' rank ', subme, &
      ' of ', subnp, ' sum ', sum, ' t=', t

    ! dup: the same tag on world and on the duplicate must not cross
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_compare(MPI_COMM_WORLD, dup, res, ierr)
    call check(res == MPI_CONGRUENT, me, 'compare(world, dup) is not MPI_CONGRUENT')
    call MPI_Comm_compare(dup, dup, res, ierr)
    call check(res == MPI_IDENT, me, 'compare(dup, dup) is not MPI_IDENT')
    if (me == 0) then
      call MPI_Send(1, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr)
      call MPI_Send(2, 1, MPI_INTEGER, 1, 5, dup, ierr)
    else if (me == 1) then
      call MPI_Recv(val, 1, MPI_INTEGER, 0, 5, dup, st, ierr)
      call check(val == 2, me, 'dup: message from the parent communicator matched')
      call MPI_Recv(val, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, st, ierr)
      call check(val == 1 .and. st(MPI_SOURCE) == 0, me, 'dup: world message')
    end if
    call MPI_Barrier(dup, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': dup isolated t=', t

    ! handle conversion both ways
    call check(fhelper_world_c2f() == MPI_COMM_WORLD, me, 'c2f(MPI_COMM_WORLD) differs from Fortran''s')
    csum = fhelper_rank_sum(MPI_COMM_WORLD, crank, csize)
    call check(crank == me .and. csize == np .and. csum == np * (np - 1) / 2, me, 'f2c on MPI_COMM_WORLD')
    cc = fhelper_split_parity(dup)
    call MPI_Comm_rank(cc, crank, ierr)
    call MPI_Comm_size(cc, csize, ierr)
    call check(csize == (np - 1 - modulo(me, 2)) / 2 + 1, me, 'comm from C: size')
    call check(crank == (np - 1 - modulo(me, 2)) / 2 - me / 2, me, 'comm from C: rank')
    ! use it from Fortran: ring shift inside the parity class
    call MPI_Sendrecv(me, 1, MPI_INTEGER, modulo(crank + 1, csize), 9, val, 1, MPI_INTEGER, &
                      modulo(crank - 1, csize), 9, cc, st, ierr)
    i = modulo(crank - 1, csize)              ! its rank in cc; world rank: reverse order within the class
    call check(val == modulo(me, 2) + 2 * ((np - 1 - modulo(me, 2)) / 2 - i), me, 'comm from C: sendrecv')
    call check(fhelper_free(cc) == 1 .and. cc == MPI_COMM_NULL, me, 'free in C')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': c comm rank ', crank, ' of ', csize, &
      ' got ', val, ' t=', t

    call MPI_Comm_free(sub, ierr)
    call MPI_Comm_free(dup, ierr)
    call check(sub == MPI_COMM_NULL .and. dup == MPI_COMM_NULL, me, 'comm_free did not reset the handles')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': communicators ok t=', t
    call emit_all(out, me, np)
    call MPI_Finalize(ierr)
  end subroutine run

  integer function sum_of_colour(color, np)
    integer, intent(in) :: color, np
    integer :: r
    sum_of_colour = 0
    do r = color, np - 1, 3
      sum_of_colour = sum_of_colour + r
    end do
  end function sum_of_colour
end program fortran_comm
