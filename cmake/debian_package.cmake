# SPDX-License-Identifier: Apache-2.0
# perfmon's Debian package (scripts/make-deb): what `cmake --install` puts under /usr — the CLI,
# the libraries, headers, pkg-config and CMake files, the QEMU plugin, perfmonpy, the manual pages
# and bash completion — with the copyright and changelog files Debian's policy asks for. Package
# dependencies on shared libraries come from dpkg-shlibdeps; those loaded at run time are named.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perfmon)
set(CPACK_PACKAGE_VENDOR "the perfmon authors")
set(CPACK_PACKAGE_CONTACT "perfmon authors <perfmon@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "count and sample CPU performance events, with perf's conventions")
# The extended description; CPack puts the summary above it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "perfmon stat, record, report, script, diff, annotate, top and serve read
and write what perf does (its event syntax, CSV and JSON, perf.data files,
pipe mode), with perfmon2's event sets, randomized sampling periods and
notifications; exact counts without a PMU on QEMU's emulated CPU; a C++ and
C library, Python bindings (perfmonpy) and the C APIs of perfmon2, libcpc,
libpmc, pctr, likwid's Marker API and PAPI's high-level API, all over
Linux's perf_event_open.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# Loaded when first needed, not linked (dpkg-shlibdeps cannot see them): libpfm4's CPU-model event
# tables, Capstone's disassembly (annotate) and libdw's DWARF (source lines, --call-graph dwarf) are
# part of what perfmon is; serve's HTTP and --emulate's QEMU are recommended.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-numpy, libpfm4, libcapstone4, libdw1, zlib1g")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libmicrohttpd12, qemu-user")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "linux-perf")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The libraries' cache is rebuilt by dpkg's trigger, as policy asks (CPack's postinst also runs
# ldconfig, which lintian only warns of).
file(WRITE ${CMAKE_BINARY_DIR}/debian-control/triggers "activate-noawait ldconfig\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/debian-control/triggers)

# /usr/share/doc/perfmon: copyright (machine-readable, from LICENSE's terms and NOTICE) and the
# changelog, compressed as policy asks (gzip -n: no timestamp).
set(perfmon_doc ${CMAKE_BINARY_DIR}/debian-doc)
file(MAKE_DIRECTORY ${perfmon_doc})
file(READ ${PROJECT_SOURCE_DIR}/NOTICE perfmon_notice)
string(REGEX REPLACE "\n" "\n " perfmon_notice " ${perfmon_notice}")
string(REGEX REPLACE "\n \n" "\n .\n" perfmon_notice "${perfmon_notice}")
file(WRITE ${perfmon_doc}/copyright
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: perfmon\n"
     "Comment:\n${perfmon_notice}\n\n"
     "Files: *\n"
     "Copyright: 2026 the perfmon authors\n"
     "License: Apache-2.0\n"
     " On Debian systems, the full text of the Apache License, Version 2.0 is in\n"
     " /usr/share/common-licenses/Apache-2.0.\n")
file(WRITE ${perfmon_doc}/changelog
     "perfmon (${PROJECT_VERSION}) unstable; urgency=medium\n\n"
     "  * perfmon ${PROJECT_VERSION}: see README.md and docs/ in its sources.\n\n"
     " -- ${CPACK_PACKAGE_CONTACT}  Sat, 28 Nov 2026 00:00:00 +0000\n")
add_custom_command(OUTPUT ${perfmon_doc}/changelog.gz
                   COMMAND gzip -9 -n -k -f ${perfmon_doc}/changelog
                   DEPENDS ${perfmon_doc}/changelog)
add_custom_target(perfmon_debian_doc ALL DEPENDS ${perfmon_doc}/changelog.gz)
install(FILES ${perfmon_doc}/copyright ${perfmon_doc}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
include(CPack)
