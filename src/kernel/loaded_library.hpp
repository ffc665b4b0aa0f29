// SPDX-License-Identifier: Apache-2.0
// A shared library loaded when a command first needs it (libpfm4, Capstone, libmicrohttpd), not
// at start: its functions looked up by name. The handle stays open for the process's life.
#pragma once

#include <dlfcn.h>

#include <string>

namespace perfmon::kernel {

class LoadedLibrary {
 public:
  // dlopen's: null, with why() saying so, where it cannot be loaded.
  explicit LoadedLibrary(const char* soname) : handle_(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) why_ = ::dlerror();
  }
  bool loaded() const noexcept { return handle_ != nullptr; }
  const std::string& why() const noexcept { return why_; }
  // Sets `function` to the library's `name`; false where it has none.
  template <typename Function>
  bool find(const char* name, Function& function) const {
    function = handle_ != nullptr ? reinterpret_cast<Function>(::dlsym(handle_, name)) : nullptr;
    return function != nullptr;
  }

 private:
  void* handle_;
  std::string why_;
};

}  // namespace perfmon::kernel
