#include "emulate/conformance/vectors.h"

#include <fstream>
#include <sstream>

#include "emulate/conformance/forms.h"

namespace bankcheck::conformance {
namespace {

bool Word(const std::string& text, uint32_t* word) {
  if (text.size() != 8) return false;
  uint32_t value = 0;
  for (const char c : text) {
    const int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (digit < 0) return false;
    value = value << 4 | static_cast<uint32_t>(digit);
  }
  *word = value;
  return true;
}

}  // namespace

bool ReadVectors(const std::string& path, RecordedVectors* vectors, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error =
        "cannot read " + path + " (record it on an sm_90 GPU: bankcheck_conformance_record " + path + ")";
    return false;
  }
  const auto fail = [&](size_t line, const std::string& why) {
    *error =
        path + ":" + std::to_string(line) + ": " + why + " (not a file bankcheck_conformance_record wrote)";
    return false;
  };
  std::string text;
  size_t line = 0;
  RecordedForm* form = nullptr;
  uint32_t rows = 0;  // rows the current form still has
  while (std::getline(file, text)) {
    ++line;
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    if (rows > 0) {
      std::string field;
      for (uint32_t i = 0; i < kInputs + form->outputs; ++i) {
        uint32_t word = 0;
        if (!(fields >> field) || !Word(field, &word)) return fail(line, "expected 8-hex-digit words");
        (i < kInputs ? form->in : form->out).push_back(word);
      }
      for (uint32_t i = form->outputs; i < kOutputs; ++i) form->out.push_back(0);
      if (fields >> field) return fail(line, "more words than the form has");
      --rows;
      continue;
    }
    std::string key;
    fields >> key;
    std::string rest;
    std::getline(fields >> std::ws, rest);
    if (key == "device") {
      vectors->device = rest;
    } else if (key == "driver") {
      vectors->driver = rest;
    } else if (key == "runtime") {
      vectors->runtime = rest;
    } else if (key == "sm") {
      vectors->sm = rest;
    } else if (key == "form") {
      std::istringstream header(rest);
      RecordedForm next;
      if (!(header >> next.name >> next.opcode >> next.outputs >> rows) || next.outputs < 1 ||
          next.outputs > kOutputs || rows != kThreads)
        return fail(line, "expected 'form <kernel> <opcode> <outputs 1-4> " + std::to_string(kThreads) + "'");
      vectors->forms.push_back(std::move(next));
      form = &vectors->forms.back();
    } else {
      return fail(line, "unknown line '" + key + "'");
    }
  }
  if (rows > 0) return fail(line, "the last form has fewer vectors than it says");
  if (vectors->device.empty() || vectors->driver.empty() || vectors->runtime.empty() || vectors->sm != "9.0")
    return fail(line, "the device, driver, runtime or sm (9.0) that recorded it is missing");
  return true;
}

}  // namespace bankcheck::conformance
