! fortran_sample: sampled regions from Fortran (XSIM_SAMPLE_BEGIN / XSIM_SAMPLE_END, include/xsim.h and
! docs/real-programs.md "Sampling"). Each rank runs region 1, LOCAL with 2 samples, 6 times; when it runs it
! costs (i + 1) ms (xsim_compute): 1 and 2 ms run, the 4 others charge the mean 1.5 ms: 9 ms in all.
! Run with -xsim-cpu none.
program fortran_sample
  use mpi
  use iso_c_binding, only: c_double
  implicit none
  interface
    subroutine xsim_compute(seconds) bind(C, name='xsim_compute')
      import :: c_double
      real(c_double), value :: seconds
    end subroutine xsim_compute
  end interface
  integer, external :: xsim_sample_begin
  integer :: ierr, me, i, ran
  double precision :: t0, t1
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  ran = 0
  t0 = MPI_Wtime()
  do i = 0, 5
    if (xsim_sample_begin(1, 2, 0) /= 0) then
      ran = ran + 1
      call xsim_compute(1.0d-3 * (i + 1))
      call xsim_sample_end(1)
    end if
  end do
  t1 = MPI_Wtime()
  print '(a,i0,a,i0,a,f12.9)', 'rank ', me, ': region ran ', ran, ' times, took ', t1 - t0
  call MPI_Finalize(ierr)
end program fortran_sample
