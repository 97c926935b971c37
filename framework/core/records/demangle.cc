#include "core/records/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace bankcheck::internal {

std::string Demangle(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> readable(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && readable ? std::string(readable.get()) : mangled;
}

}  // namespace bankcheck::internal
