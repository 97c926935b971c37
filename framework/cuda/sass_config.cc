#include "cuda/internal/sass_config.h"

#include <cstdlib>
#include <map>
#include <set>

#include "bankcheck/core/error.h"

namespace bankcheck::internal {
namespace {

constexpr const char* kVariable = "BANKCHECK_SASS_CONFIG";
constexpr const char* kUsage = "granularity=gpu|sm|smsp, patching=lazy|eager, metrics=all|no-ideal|ld-st";

[[noreturn]] void Refuse(const std::string& what) {
  throw Error(ErrorKind::kBadInput, std::string(kVariable) + ": " + what + " (it takes comma-separated " +
                                        kUsage + "; unset it for the default)");
}

template <typename T>
T Choose(const std::string& key, const std::string& value, const std::map<std::string, T>& choices) {
  const auto found = choices.find(value);
  if (found == choices.end()) Refuse("'" + value + "' is not a value of " + key);
  return found->second;
}

}  // namespace

SassConfig ParseSassConfig(const std::string& text) {
  SassConfig config;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    const size_t equals = item.find('=');
    if (equals == std::string::npos) Refuse("'" + item + "' is not key=value");
    const std::string key = item.substr(0, equals), value = item.substr(equals + 1);
    if (!seen.insert(key).second) Refuse("'" + key + "' is given twice");
    using G = SassConfig::Granularity;
    using M = SassConfig::Metrics;
    if (key == "granularity") {
      config.granularity = Choose<G>(key, value, {{"gpu", G::kGpu}, {"sm", G::kSm}, {"smsp", G::kSmsp}});
    } else if (key == "patching") {
      config.lazy_patching = Choose<bool>(key, value, {{"lazy", true}, {"eager", false}});
    } else if (key == "metrics") {
      config.metrics = Choose<M>(
          key, value,
          {{"all", M::kAll}, {"no-ideal", M::kNoIdeal}, {"ld-st", M::kLdSt}, {"shared", M::kShared}});
    } else {
      Refuse("'" + key + "' is not a setting");
    }
  }
  return config;
}

SassConfig SassConfigFromEnvironment() {
  const char* set = std::getenv(kVariable);
  return set == nullptr ? SassConfig{} : ParseSassConfig(set);
}

PerKind<bool> KindsLeftOut(const SassConfig& config) {
  PerKind<bool> left_out;
  for (const MemoryKindInfo& info : MemoryKinds())
    left_out[info.kind] =
        config.metrics == SassConfig::Metrics::kShared && info.space != MemorySpace::kShared;
  return left_out;
}

std::string Describe(const SassConfig& config) {
  static const char* const kGranularity[] = {"gpu", "sm", "smsp"};
  static const char* const kMetrics[] = {"all", "no-ideal", "ld-st", "shared"};
  return std::string("granularity=") + kGranularity[static_cast<int>(config.granularity)] +
         ",patching=" + (config.lazy_patching ? "lazy" : "eager") +
         ",metrics=" + kMetrics[static_cast<int>(config.metrics)];
}

}  // namespace bankcheck::internal
