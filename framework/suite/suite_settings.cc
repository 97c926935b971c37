#include <utility>

#include "bankcheck/suite/suite.h"

namespace bankcheck::suites {
namespace {
// A function's static: set while the generated file's static objects are initialized, whatever the
// order of files.
SuiteSettings& Settings() {
  static SuiteSettings settings;
  return settings;
}
}  // namespace

bool SetSuiteSettings(SuiteSettings settings) {
  Settings() = std::move(settings);
  return true;
}

const SuiteSettings& GetSuiteSettings() { return Settings(); }

namespace {
SuiteBuild& Build() {
  static SuiteBuild build;
  return build;
}
}  // namespace

bool SetSuiteBuild(SuiteBuild build) {
  Build() = std::move(build);
  return true;
}

const SuiteBuild& GetSuiteBuild() { return Build(); }

}  // namespace bankcheck::suites
