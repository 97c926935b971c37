#pragma once
// The conformance vectors file (record.cc writes it, docs/emulate.md describes it), read back for the
// replay test. The file is in the repository, so a pull request controls it: every count is checked
// against forms.h's layout before it sizes anything.

#include <cstdint>
#include <string>
#include <vector>

namespace bankcheck::conformance {

struct RecordedForm {
  std::string name;    // the kernel
  std::string opcode;  // the SASS form it claims
  uint32_t outputs = 0;
  std::vector<uint32_t> in;   // kThreads * kInputs words
  std::vector<uint32_t> out;  // kThreads * kOutputs words: those past `outputs` 0, as the GPU left them
};

struct RecordedVectors {
  std::string device, driver, runtime, sm;  // what recorded them
  std::vector<RecordedForm> forms;
};

// Reads `path`; false with `error` saying which line is wrong and how (or that the file cannot be
// read) when it is not a file record.cc wrote.
bool ReadVectors(const std::string& path, RecordedVectors* vectors, std::string* error);

}  // namespace bankcheck::conformance
