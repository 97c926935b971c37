// A stand-in for libbankcheck_inject.so in `bankcheck run`'s tests (run_command_test.cc), where no
// GPU is: its probe finds a usable GPU unless BANKCHECK_FAKE_NO_GPU gives the reason there is none.
// The programs those tests run write the processes' results themselves, as the real library would.

#include <cstdlib>
#include <cstring>

extern "C" __attribute__((visibility("default"))) int bankcheck_injection_probe(char* reason, size_t size) {
  const char* no_gpu = std::getenv("BANKCHECK_FAKE_NO_GPU");
  if (no_gpu == nullptr) return 1;
  std::strncpy(reason, no_gpu, size - 1);
  reason[size - 1] = '\0';
  return 0;
}
