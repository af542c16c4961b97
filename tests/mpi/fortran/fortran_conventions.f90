! fortran_conventions.f90 - the Fortran conventions xsim's own bindings (fortran/) convert, under `use mpi`:
! MPI_Init_thread; the command line without xsim's -xsim-* options (libgfortran's copy of the rank's argv);
! 1-based indices from MPI_Waitany/MPI_Waitsome (MPI_UNDEFINED when nothing is left);
! status arrays and MPI_STATUSES_IGNORE; LOGICAL flags (MPI_Testall, MPI_Iprobe); CHARACTER arguments with
! blank padding (processor name, communicator names); an error handler that is a Fortran subroutine
! (MPI_Comm_create_errhandler + MPI_Comm_call_errhandler), also an internal one called through a trampoline on
! the rank's stack; MPI_Alltoallw's arrays of datatypes; window
! attributes by value (MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_BASE); MPI_Alloc_mem into a TYPE(C_PTR) (Open
! MPI's `mpi` module calls mpi_alloc_mem_cptr_ for it); MPI_UNWEIGHTED in a distributed graph; a reduction
! operation that is a Fortran subroutine (MPI_Op_create: the native MPI's binding) in MPI_Allreduce.
! Each rank counts its failed checks; rank 0 prints every rank's line (errors and virtual time) in rank order.
! With the argument `unsupported`, rank 1 calls MPI_Comm_join, which xsim does not support: the run
! must stop naming it.
program fortran_conventions
  use fortran_test_util
  implicit none
  call run()
contains

  recursive subroutine run()
    use mpi
    use iso_c_binding, only: c_ptr, c_f_pointer
    implicit none
    integer :: ierr, me, np, provided, left, right, n, k, idx, outcount, errs, dup, eh, g, plen, clen, win
    integer :: reqs(4), indices(4), sts(MPI_STATUS_SIZE, 4), st(MPI_STATUS_SIZE), got(4)
    integer :: indeg, outdeg, srcs(1), dsts(1), newcomm
    integer, allocatable :: sbuf(:), rbuf(:), counts(:), displs(:), types(:)
    integer :: wbuf(4)
    integer(kind=MPI_ADDRESS_KIND) :: aval, addr
    logical :: flag, weighted
    character(len=MPI_MAX_PROCESSOR_NAME) :: pname
    character(len=MPI_MAX_OBJECT_NAME) :: cname
    character(len=16) :: arg
    type(c_ptr) :: mem
    integer, pointer :: words(:)
    character(len=80) :: line(1)
    double precision :: t
    external :: rename_on_error, max_abs, count_errors_internally
    integer :: op, red(2)

    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
    errs = 0
    if (ierr /= MPI_SUCCESS .or. provided < MPI_THREAD_SINGLE .or. provided > MPI_THREAD_MULTIPLE) errs = errs + 1
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    right = mod(me + 1, np)
    left = mod(me - 1 + np, np)

    arg = ' '
    if (command_argument_count() >= 1) call get_command_argument(1, arg)
    ! the program's own arguments only: xsim removed its -xsim-* options before the rank's main started
    do k = 1, command_argument_count()
      call get_command_argument(k, line(1))
      if (line(1)(1:6) == '-xsim-') errs = errs + 1
    end do
    if (arg == 'unsupported' .and. me == 1) then
      call MPI_Comm_join(0, newcomm, ierr)
    end if

    ! Waitany: indices start at 1, completed requests become MPI_REQUEST_NULL, then MPI_UNDEFINED
    got = -1
    call MPI_Irecv(got(1), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(got(2), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(me, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(me, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(4), ierr)
    do n = 1, 4
      call MPI_Waitany(4, reqs, idx, st, ierr)
      if (idx < 1 .or. idx > 4) then
        errs = errs + 1
        exit
      end if
      if (reqs(idx) /= MPI_REQUEST_NULL) errs = errs + 1
      if (idx == 1 .and. (st(MPI_SOURCE) /= left .or. st(MPI_TAG) /= 1)) errs = errs + 1
      if (idx == 2 .and. (st(MPI_SOURCE) /= right .or. st(MPI_TAG) /= 2)) errs = errs + 1
    end do
    call MPI_Waitany(4, reqs, idx, st, ierr)
    if (idx /= MPI_UNDEFINED) errs = errs + 1
    if (got(1) /= left .or. got(2) /= right) errs = errs + 1

    ! Waitsome: 1-based indices and one status per completed request
    got = -1
    call MPI_Irecv(got(1), 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(got(2), 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Isend(me, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(3), ierr)
    call MPI_Isend(me, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(4), ierr)
    n = 0
    do while (n < 4)
      call MPI_Waitsome(4, reqs, outcount, indices, sts, ierr)
      if (outcount == MPI_UNDEFINED .or. outcount < 1) then
        errs = errs + 1
        exit
      end if
      do k = 1, outcount
        if (indices(k) == 1 .and. sts(MPI_SOURCE, k) /= left) errs = errs + 1
        if (indices(k) == 2 .and. sts(MPI_TAG, k) /= 4) errs = errs + 1
        if (indices(k) < 1 .or. indices(k) > 4) errs = errs + 1
      end do
      n = n + outcount
    end do
    call MPI_Waitsome(4, reqs, outcount, indices, sts, ierr)
    if (outcount /= MPI_UNDEFINED) errs = errs + 1
    if (got(1) /= left .or. got(2) /= right) errs = errs + 1

    ! Testall (LOGICAL flag) with MPI_STATUSES_IGNORE
    call MPI_Irecv(got(3), 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(me, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(2), ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    if (got(3) /= left .or. reqs(1) /= MPI_REQUEST_NULL) errs = errs + 1

    ! Iprobe: .true. for a message that has arrived, .false. for a tag nobody sends
    call MPI_Send(me, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, ierr)
    call MPI_Probe(left, 6, MPI_COMM_WORLD, st, ierr)
    call MPI_Iprobe(left, 6, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
    if (.not. flag) errs = errs + 1
    call MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, flag, st, ierr)
    if (flag) errs = errs + 1
    call MPI_Recv(got(4), 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (got(4) /= left) errs = errs + 1

    ! CHARACTER arguments: blank padding out, trailing blanks ignored in
    pname = 'x'
    call MPI_Get_processor_name(pname, plen, ierr)
    if (plen < 1 .or. len_trim(pname) /= plen) errs = errs + 1
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_set_name(dup, 'fortran dup   ', ierr)
    cname = 'garbage garbage garbage'
    call MPI_Comm_get_name(dup, cname, clen, ierr)
    if (cname /= 'fortran dup' .or. clen /= 11) errs = errs + 1

    ! an error handler that is a Fortran subroutine: it renames the communicator it is called with
    call MPI_Comm_create_errhandler(rename_on_error, eh, ierr)
    call MPI_Comm_set_errhandler(dup, eh, ierr)
    call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER, ierr)
    call MPI_Comm_get_name(dup, cname, clen, ierr)
    if (cname /= 'handled') errs = errs + 1
    call MPI_Errhandler_free(eh, ierr)
    call count_errors_internally(dup, errs)
    call MPI_Comm_free(dup, ierr)
    if (dup /= MPI_COMM_NULL) errs = errs + 1

    ! MPI_Alltoallw: one integer to every rank, datatypes given per peer
    allocate(sbuf(np), rbuf(np), counts(np), displs(np), types(np))
    do k = 1, np
      sbuf(k) = 1000 * me + (k - 1)
      counts(k) = 1
      displs(k) = 4 * (k - 1)
      types(k) = MPI_INTEGER
    end do
    rbuf = -1
    call MPI_Alltoallw(sbuf, counts, displs, types, rbuf, counts, displs, types, MPI_COMM_WORLD, ierr)
    do k = 1, np
      if (rbuf(k) /= 1000 * (k - 1) + me) errs = errs + 1
    end do

    ! window attributes come back by value
    call MPI_Win_create(wbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_Win_get_attr(win, MPI_WIN_SIZE, aval, flag, ierr)
    if (.not. flag .or. aval /= 16) errs = errs + 1
    call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, aval, flag, ierr)
    if (.not. flag .or. aval /= 4) errs = errs + 1
    call MPI_Win_get_attr(win, MPI_WIN_BASE, aval, flag, ierr)
    call MPI_Get_address(wbuf, addr, ierr)
    if (.not. flag .or. aval /= addr) errs = errs + 1
    call MPI_Win_free(win, ierr)

    ! memory from MPI_Alloc_mem through a TYPE(C_PTR)
    call MPI_Alloc_mem(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, mem, ierr)
    call c_f_pointer(mem, words, (/ 16 /))
    words = me
    if (ierr /= MPI_SUCCESS .or. sum(words) /= 16 * me) errs = errs + 1
    call MPI_Free_mem(words, ierr)
    if (ierr /= MPI_SUCCESS) errs = errs + 1

    ! a distributed graph without weights (MPI_UNWEIGHTED)
    srcs(1) = left
    dsts(1) = right
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .false., g, ierr)
    call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
    if (indeg /= 1 .or. outdeg /= 1 .or. weighted) errs = errs + 1
    call MPI_Neighbor_allgather(me, 1, MPI_INTEGER, got(1), 1, MPI_INTEGER, g, ierr)
    if (got(1) /= left) errs = errs + 1
    call MPI_Comm_free(g, ierr)

    ! a user reduction written in Fortran: the largest absolute value
    call MPI_Op_create(max_abs, .true., op, ierr)
    red(1) = merge(-me, me, mod(me, 2) == 1)
    red(2) = 3
    call MPI_Allreduce(MPI_IN_PLACE, red, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    if (red(1) /= merge(1 - np, np - 1, mod(np - 1, 2) == 1) .or. red(2) /= 3) errs = errs + 1
    call MPI_Op_free(op, ierr)

    t = MPI_Wtime()
    write(line(1), '(A,I0,A,I0,A,F12.9)') 'rank ', me, ': errors ', errs, ' t=', t
    call emit_all(line, me, np)
    call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (me == 0 .and. errs == 0) print '(A)', 'fortran_conventions: ok'
    call MPI_Finalize(ierr)
  end subroutine run
end program fortran_conventions

! The error handler: an external subroutine (an internal one passed as an argument would need a trampoline on
! the stack). It renames the communicator it is called with.
recursive subroutine rename_on_error(comm, code)
  use mpi
  integer :: comm, code, ierr
  if (code == MPI_ERR_OTHER) call MPI_Comm_set_name(comm, 'handled', ierr)
end subroutine rename_on_error

! A user reduction: inout(i) becomes the one of in(i), inout(i) with the larger absolute value.
subroutine max_abs(in, inout, n, datatype)
  integer :: n, datatype, i
  integer :: in(n), inout(n)
  do i = 1, n
    if (abs(in(i)) > abs(inout(i))) inout(i) = in(i)
  end do
end subroutine max_abs

! An error handler that is an internal subroutine updating a variable of its host: gfortran passes it through a
! trampoline on the (rank's) stack, so the executable asks for an executable stack and xsim's rank stacks
! must honour that.
recursive subroutine count_errors_internally(comm, errs)
  use mpi
  integer :: comm, errs, eh, ierr, handled
  handled = 0
  call MPI_Comm_create_errhandler(count_error, eh, ierr)
  call MPI_Comm_set_errhandler(comm, eh, ierr)
  call MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER, ierr)
  call MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER, ierr)
  if (handled /= 2) errs = errs + 1
  call MPI_Errhandler_free(eh, ierr)
contains
  subroutine count_error(c, code)
    integer :: c, code
    if (code == MPI_ERR_OTHER .and. c /= MPI_COMM_NULL) handled = handled + 1
  end subroutine count_error
end subroutine count_errors_internally
