! priv_fortran.f90 - Fortran state per virtual rank (docs/privatization.md): a COMMON block holding the
! rank's subdomain, a SAVE variable counting calls, an initialised SAVE variable and a module variable.
! Between setting and checking them the ranks communicate, so that every other rank of the native process
! runs in between. With privatization every check holds; with shared globals the program reports the
! damage and stops with code 1.
module priv_state
  implicit none
  integer :: steps_done = 0
end module priv_state

subroutine bump(calls)
  implicit none
  integer, intent(out) :: calls
  integer, save :: count = 0
  count = count + 1
  calls = count
end subroutine bump

integer function base_value()
  implicit none
  integer, save :: base = 7      ! initialised SAVE variable: .data
  base = base + 1
  base_value = base
end function base_value

program priv_fortran
  use mpi
  use priv_state
  implicit none
  integer :: lo, hi
  double precision :: cells(200)
  common /subdomain/ lo, hi, cells
  integer :: ierr, rank, nranks, errors, total, step, calls, token, got
  integer, external :: base_value

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  errors = 0
  if (lo /= 0 .or. hi /= 0 .or. steps_done /= 0) errors = errors + 1
  lo = rank * 200 + 1
  hi = lo + 199
  cells = dble(rank)
  if (base_value() /= 8) errors = errors + 1

  do step = 1, 3
    call bump(calls)
    token = rank
    call MPI_Sendrecv(token, 1, MPI_INTEGER, mod(rank + 1, nranks), step, got, 1, MPI_INTEGER, &
                      mod(rank + nranks - 1, nranks), step, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    steps_done = steps_done + 1
    if (calls /= step .or. steps_done /= step) errors = errors + 1
    if (got /= mod(rank + nranks - 1, nranks)) errors = errors + 1
  end do
  if (lo /= rank * 200 + 1 .or. hi /= lo + 199) errors = errors + 1
  if (any(cells /= dble(rank))) errors = errors + 1
  if (base_value() /= 9) errors = errors + 1

  call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'priv_fortran: ', nranks, ' ranks, COMMON, SAVE and module variables ok'
    else
      write (0, '(a,i0,a)') 'priv_fortran: FAILED: ', total, ' checks saw another rank''s variables'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program priv_fortran
