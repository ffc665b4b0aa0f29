# SPDX-License-Identifier: Apache-2.0
# Cross-compiling for the emulated-PMU rig: static aarch64 executables that run in a bare
# initramfs (tests/rig/run).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)  # header-only nlohmann_json from the host is fine
# The test binaries cannot run on the build host: list their tests when ctest runs them.
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
# GCC 12's -Wrestrict reports impossible overlaps inside std::string's concatenation at -O2 (GCC bug
# 105329, fixed in GCC 13); it fires on this target only, in the library and in GoogleTest.
set(CMAKE_CXX_FLAGS_INIT "-Wno-restrict")
