! SPDX-License-Identifier: Apache-2.0
! PAPI's high-level API from Fortran, as PAPI's own Fortran tests call it (PAPIf_hl_region_begin,
! _read, _end, _stop, a status in `check`): a region "computation" of 1000 getppid calls, read
! after 400, then one "tail" region of 10; PAPI_EVENTS=syscalls:sys_enter_getppid counts them.
program papi_hl_fortran
  use iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function getppid() bind(C, name="getppid")
      import :: c_int
    end function getppid
  end interface
  integer :: check, i, parent

  call PAPIf_hl_region_begin("computation", check)
  if (check /= 0) stop 2
  do i = 1, 1000
    parent = getppid()
    if (i == 400) then
      call PAPIf_hl_read("computation", check)
      if (check /= 0) stop 3
    end if
  end do
  call PAPIf_hl_region_end("computation", check)
  if (check /= 0) stop 4
  call PAPIf_hl_region_begin("tail", check)
  do i = 1, 10
    parent = getppid()
  end do
  call PAPIf_hl_region_end("tail", check)
  call PAPIf_hl_stop(check)
  print '(a, i0)', 'stop: ', check
end program papi_hl_fortran
