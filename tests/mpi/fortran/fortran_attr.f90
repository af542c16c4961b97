! fortran_attr.f90 - attribute caching from Fortran (`use mpi`) under xsim. MPICH's Fortran bindings reach
! attributes through MPICH-internal functions that xsim defines as well (api_attr.cpp), so this checks
! that path: predefined attributes by value (MPI_UNIVERSE_SIZE is the number of virtual ranks), user
! keyvals with Fortran copy and delete callbacks (called through MPICH's Fortran proxies), attributes on
! duplicates, MPI_COMM_NULL_COPY_FN, and the MPI-1 forms with default integers. The delete callback counts
! its calls in an attribute of MPI_COMM_SELF (each rank its own: no global variable). Rank 0 prints all
! ranks' lines at the end, in rank order.
program fortran_attr
  use fortran_test_util
  implicit none
  call run()
contains

  recursive subroutine run()
    use mpi
    implicit none
    integer :: ierr, me, np, kv_count, kv_plus, kv_null, kv_old, dup, dup2, ival
    integer(kind=MPI_ADDRESS_KIND) :: got, extra
    logical :: flag
    double precision :: t
    character(len=120) :: out(4)
    integer :: nout

    call MPI_Init(ierr)
    out = ' '
    nout = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

    ! predefined attributes come back by value in Fortran
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, got, flag, ierr)
    call check(flag .and. got == np, me, 'MPI_UNIVERSE_SIZE is not the number of virtual ranks')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, got, flag, ierr)
    call check(flag .and. got >= 32767, me, 'MPI_TAG_UB')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, got, flag, ierr)
    call check(flag .and. got == 1, me, 'MPI_WTIME_IS_GLOBAL')
    call MPI_Attr_get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, ival, flag, ierr)
    call check(flag .and. ival == np, me, 'MPI_Attr_get(MPI_UNIVERSE_SIZE)')

    ! the delete counter, and a keyval whose copy adds one and whose delete counts
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv_count, 0_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_set_attr(MPI_COMM_SELF, kv_count, 0_MPI_ADDRESS_KIND, ierr)
    extra = kv_count
    call MPI_Comm_create_keyval(copy_plus_one, count_delete, kv_plus, extra, ierr)
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv_null, 0_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_set_attr(dup, kv_plus, int(1000 + me, MPI_ADDRESS_KIND), ierr)
    call MPI_Comm_set_attr(dup, kv_null, 7_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_get_attr(dup, kv_plus, got, flag, ierr)
    call check(flag .and. got == 1000 + me, me, 'get_attr after set_attr')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, kv_plus, got, flag, ierr)
    call check(.not. flag, me, 'an attribute of the dup is visible on the world')
    call MPI_Comm_dup(dup, dup2, ierr)
    call MPI_Comm_get_attr(dup2, kv_plus, got, flag, ierr)
    call check(flag .and. got == 1001 + me, me, 'the Fortran copy callback did not run')
    call MPI_Comm_get_attr(dup2, kv_null, got, flag, ierr)
    call check(.not. flag, me, 'an MPI_COMM_NULL_COPY_FN attribute was copied')
    call MPI_Comm_delete_attr(dup2, kv_plus, ierr)
    call check(deletes(kv_count) == 1, me, 'delete_attr did not call the delete callback')
    call MPI_Comm_free(dup, ierr)
    call check(deletes(kv_count) == 2, me, 'comm_free did not call the delete callback')
    call MPI_Comm_free(dup2, ierr)
    call check(deletes(kv_count) == 2, me, 'a deleted attribute was deleted again')
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,I0,A,I0,A,F12.9)') 'rank ', me, ': keyvals ok, universe ', np, ' deletes ', &
      deletes(kv_count), ' t=', t

    ! MPI-1 forms with default integers
    call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, kv_old, 0, ierr)
    call MPI_Attr_put(MPI_COMM_WORLD, kv_old, 77 + me, ierr)
    call MPI_Attr_get(MPI_COMM_WORLD, kv_old, ival, flag, ierr)
    call check(flag .and. ival == 77 + me, me, 'MPI_Attr_get of MPI_Attr_put')
    call MPI_Attr_delete(MPI_COMM_WORLD, kv_old, ierr)
    call MPI_Attr_get(MPI_COMM_WORLD, kv_old, ival, flag, ierr)
    call check(.not. flag, me, 'MPI_Attr_delete')
    call MPI_Keyval_free(kv_old, ierr)
    call check(kv_old == MPI_KEYVAL_INVALID, me, 'MPI_Keyval_free did not reset the keyval')
    call MPI_Comm_free_keyval(kv_plus, ierr)
    call MPI_Comm_free_keyval(kv_null, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t = MPI_Wtime()
    nout = nout + 1
    write(out(nout), '(A,I0,A,F12.9)') 'rank ', me, ': attributes ok t=', t
    call emit_all(out, me, np)
    call MPI_Finalize(ierr)
  end subroutine run

  ! The number of delete callbacks so far: an attribute of MPI_COMM_SELF.
  integer function deletes(kv_count)
    use mpi
    integer, intent(in) :: kv_count
    integer(kind=MPI_ADDRESS_KIND) :: v
    logical :: flag
    integer :: ierr
    call MPI_Comm_get_attr(MPI_COMM_SELF, kv_count, v, flag, ierr)
    deletes = int(v)
  end function deletes

  subroutine copy_plus_one(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierr)
    use mpi
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    attribute_val_out = attribute_val_in + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy_plus_one

  recursive subroutine count_delete(comm, keyval, attribute_val, extra_state, ierr)
    use mpi
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state, v
    logical :: flag
    call MPI_Comm_get_attr(MPI_COMM_SELF, int(extra_state), v, flag, ierr)
    call MPI_Comm_set_attr(MPI_COMM_SELF, int(extra_state), v + 1, ierr)
    ierr = MPI_SUCCESS
  end subroutine count_delete
end program fortran_attr
