// SPDX-License-Identifier: Apache-2.0
// The rig's guest has no network, and its test programs are linked statically. GoogleTest can stream
// results to a host it looks up with getaddrinfo(3), which glibc warns cannot work in a static
// program; the rig never streams results. These stand-ins keep glibc's lookup code, and its warning,
// out of the link: a lookup simply fails.
#include <netdb.h>

extern "C" int getaddrinfo(const char*, const char*, const addrinfo*, addrinfo** result) {
  *result = nullptr;
  return EAI_FAIL;
}

extern "C" void freeaddrinfo(addrinfo*) {}
