#include "benchmark_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "bankcheck/error.h"
#include "bankcheck/limits.h"
#include "core/internal/file_io.h"
#include "core/internal/json_io.h"
#include "core/internal/svg.h"
#include "core/internal/text_table.h"

namespace bankcheck::cli {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const char kAdvice[] =
    "Expected a benchmark program's output written with --benchmark_format=json or --benchmark_out=FILE.";

// ---- reading ---------------------------------------------------------------------------------------

// Google Benchmark writes non-finite numbers as bare NaN / Infinity (e.g. a coefficient of
// variation of a counter that is always 0), which is not JSON. Each such value becomes null, padded
// with spaces to the same length so that error positions still point into the file as it is.
std::string NullNonFinite(std::string text) {
  for (const char* token : {"NaN", "-NaN", "Infinity", "-Infinity"}) {
    const std::string pattern = std::string("\": ") + token;
    for (size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + 1)) {
      const size_t end = at + pattern.size();
      if (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != '\n' &&
          text[end] != '\r' && text[end] != ' ')
        continue;
      const size_t length = std::strlen(token) + 1;  // the space before the value, and the value
      text.replace(at + 2, length, "null" + std::string(length - 4, ' '));
    }
  }
  return text;
}

// "shared_stride/4B/s2/manual_time" -> "shared_stride/4B/s2": drops the parts Google Benchmark
// appends (time mode, "min_time:", "repeats:", "threads:", ...).
std::string BaseName(const std::string& run_name) {
  std::string base;
  std::stringstream parts(run_name);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part == "manual_time" || part == "real_time" || part == "process_time" ||
        part.find(':') != std::string::npos)
      continue;
    base += (base.empty() ? "" : "/") + part;
  }
  return base;
}

double SecondsPer(const FieldReader& unit) {
  const std::string name = unit.String();
  if (name == "ns") return 1e-9;
  if (name == "us") return 1e-6;
  if (name == "ms") return 1e-3;
  if (name == "s") return 1;
  unit.FailWith("unknown time unit \"" + name + "\" (expected ns, us, ms or s)");
}

bool IsCounter(const std::string& key) {
  static const std::set<std::string> kStructural = {"family_index", "per_family_instance_index",
                                                    "repetitions",  "repetition_index",
                                                    "threads",      "iterations",
                                                    "real_time",    "cpu_time"};
  return kStructural.count(key) == 0;
}

struct Accumulated {
  BenchmarkResult median;
  bool has_median = false;
  double seconds_sum = 0;
  std::map<std::string, double> counter_sums;
  int runs = 0;
  std::string error;
};

void Accumulate(const FieldReader& entry, std::vector<std::string>& order,
                std::map<std::string, Accumulated>& by_name) {
  entry.RequireObject();
  const std::string name = BaseName(entry.Field(entry.Has("run_name") ? "run_name" : "name").String());
  const bool aggregate = entry.Has("run_type") && entry.Field("run_type").String() == "aggregate";
  if (aggregate && entry.Field("aggregate_name").String() != "median") return;  // mean, stddev, cv: not used
  if (by_name.count(name) == 0) order.push_back(name);
  Accumulated& result = by_name[name];
  for (const char* flag : {"error_occurred", "skipped"}) {
    if (entry.Has(flag) && entry.json().at(flag) == true) {
      const char* message = std::strcmp(flag, "skipped") == 0 ? "skip_message" : "error_message";
      result.error = entry.Has(message) ? entry.Field(message).String() : flag;
      return;
    }
  }
  BenchmarkResult run;
  run.name = name;
  // Numbers beyond kMaxBenchmarkValue (limits.h) are refused: no measurement is that large, and
  // scales drawn to them would mean nothing.
  run.seconds =
      entry.Field("real_time").NumberIn(0, kMaxBenchmarkValue) * SecondsPer(entry.Field("time_unit"));
  for (const auto& item : entry.json().items())
    if (item.value().is_number() && IsCounter(item.key()))
      run.counters[item.key()] = entry.Field(item.key()).NumberIn(-kMaxBenchmarkValue, kMaxBenchmarkValue);
  if (aggregate) {
    result.median = std::move(run);
    result.has_median = true;
    return;
  }
  result.seconds_sum += run.seconds;
  for (const auto& [key, value] : run.counters) result.counter_sums[key] += value;
  ++result.runs;
}

// ---- summarizing -----------------------------------------------------------------------------------

std::vector<std::string> Split(const std::string& name) {
  std::vector<std::string> parts;
  std::stringstream stream(name);
  for (std::string part; std::getline(stream, part, '/');) parts.push_back(part);
  return parts;
}

double CounterOr(const BenchmarkResult& result, const char* name, double fallback) {
  const auto found = result.counters.find(name);
  return found == result.counters.end() ? fallback : found->second;
}

int VariantRank(const std::string& variant) {
  static const char* const kKnown[] = {"copy", "unpadded", "padded", "swizzled"};
  for (int i = 0; i < 4; ++i)
    if (variant == kKnown[i]) return i;
  return 4;
}

// ---- formatting ------------------------------------------------------------------------------------

std::string Fixed(double value, int digits, const char* suffix = "") {
  if (!std::isfinite(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f%s", digits, value, suffix);
  return text;
}

// ---- SVG ---------------------------------------------------------------------------------------------

constexpr double kWidth = 1100, kHeight = 520;
constexpr double kPanelTop = 70, kPanelHeight = 340;
const char* const kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"};

struct Box {
  double left, top, width, height;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

class Svg {
 public:
  Svg() {
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
         << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
         << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
         << "<title>What shared-memory bank conflicts cost in time</title>\n"
         << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  }
  void Line(double x1, double y1, double x2, double y2, const char* stroke, double width = 1,
            const char* dash = nullptr) {
    out_ << "<line x1=\"" << N(x1) << "\" y1=\"" << N(y1) << "\" x2=\"" << N(x2) << "\" y2=\"" << N(y2)
         << "\" stroke=\"" << stroke << "\" stroke-width=\"" << N(width) << "\"";
    if (dash != nullptr) out_ << " stroke-dasharray=\"" << dash << "\"";
    out_ << "/>\n";
  }
  // anchor: start, middle, end. rotate: degrees about (x, y).
  void Text(double x, double y, const std::string& text, const char* anchor = "middle", double size = 12,
            double rotate = 0, const char* weight = "normal") {
    out_ << "<text x=\"" << N(x) << "\" y=\"" << N(y) << "\" text-anchor=\"" << anchor << "\" font-size=\""
         << N(size) << "\"";
    if (std::strcmp(weight, "normal") != 0) out_ << " font-weight=\"" << weight << "\"";
    if (rotate != 0) out_ << " transform=\"rotate(" << N(rotate) << " " << N(x) << " " << N(y) << ")\"";
    out_ << ">" << XmlEscape(text) << "</text>\n";
  }
  void Rect(double x, double y, double w, double h, const char* fill, const std::string& tooltip = "") {
    OpenTooltip(tooltip);
    out_ << "<rect x=\"" << N(x) << "\" y=\"" << N(y) << "\" width=\"" << N(w) << "\" height=\"" << N(h)
         << "\" fill=\"" << fill << "\"/>\n";
    CloseTooltip(tooltip);
  }
  // Marker shapes by index: circle, square, triangle, diamond.
  void Marker(int shape, double x, double y, const char* fill, const std::string& tooltip = "") {
    const double r = 4.5;
    OpenTooltip(tooltip);
    switch (shape % 4) {
      case 0:
        out_ << "<circle cx=\"" << N(x) << "\" cy=\"" << N(y) << "\" r=\"" << N(r) << "\"";
        break;
      case 1:
        out_ << "<rect x=\"" << N(x - r) << "\" y=\"" << N(y - r) << "\" width=\"" << N(2 * r)
             << "\" height=\"" << N(2 * r) << "\"";
        break;
      case 2:
        out_ << "<polygon points=\"" << N(x) << "," << N(y - r - 1) << " " << N(x - r - 1) << "," << N(y + r)
             << " " << N(x + r + 1) << "," << N(y + r) << "\"";
        break;
      default:
        out_ << "<polygon points=\"" << N(x) << "," << N(y - r - 1) << " " << N(x + r + 1) << "," << N(y)
             << " " << N(x) << "," << N(y + r + 1) << " " << N(x - r - 1) << "," << N(y) << "\"";
    }
    out_ << " fill=\"" << fill << "\" stroke=\"black\" stroke-width=\"0.5\"/>\n";
    CloseTooltip(tooltip);
  }
  void Polyline(const std::vector<std::pair<double, double>>& points, const char* stroke) {
    out_ << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-opacity=\"0.5\" points=\"";
    for (const auto& [x, y] : points) out_ << N(x) << "," << N(y) << " ";
    out_ << "\"/>\n";
  }
  std::string Finish() {
    out_ << "</svg>\n";
    return out_.str();
  }

  static std::string N(double value) { return Fixed(value, 1); }

 private:
  // A shape with a tooltip is a group holding a <title> and the shape.
  void OpenTooltip(const std::string& tooltip) {
    if (!tooltip.empty()) out_ << "<g><title>" << XmlEscape(tooltip) << "</title>";
  }
  void CloseTooltip(const std::string& tooltip) {
    if (!tooltip.empty()) out_ << "</g>\n";
  }

  std::ostringstream out_;
};

// A horizontal legend row: each entry a marker (or bar swatch, or dashed line) and its label.
struct LegendEntry {
  std::string label;
  const char* color;
  int marker;  // marker shape; -1 a square swatch; -2 a dashed line
};
// Entries left to right, wrapping to a new row at the box's right edge.
void Legend(Svg& svg, const Box& box, double y, const std::vector<LegendEntry>& entries) {
  double x = box.left;
  for (const LegendEntry& e : entries) {
    const double width = 24 + 7.0 * static_cast<double>(e.label.size()) + 18;
    if (x > box.left && x + width - 18 > box.right()) {
      x = box.left;
      y += 18;
    }
    if (e.marker == -2) {
      svg.Line(x, y - 4, x + 18, y - 4, e.color, 1.5, "5,3");
    } else if (e.marker == -1) {
      svg.Rect(x + 3, y - 10, 12, 12, e.color);
    } else {
      svg.Marker(e.marker, x + 9, y - 4, e.color);
    }
    svg.Text(x + 24, y, e.label, "start", 12);
    x += width;
  }
}

void Frame(Svg& svg, const Box& box, const std::string& title) {
  svg.Text(box.left + box.width / 2, box.top - 12, title, "middle", 14, 0, "bold");
  svg.Line(box.left, box.bottom(), box.right(), box.bottom(), "black");
  svg.Line(box.left, box.top, box.left, box.bottom(), "black");
}

void Empty(Svg& svg, const Box& box, const std::string& message) {
  svg.Text(box.left + box.width / 2, box.top + box.height / 2, message, "middle", 13);
}

std::string PowerOfTwoLabel(int exponent) {
  if (exponent > 20 || exponent < -10) return "2^" + std::to_string(exponent);
  if (exponent >= 0) return std::to_string(1LL << exponent);
  return Fixed(std::ldexp(1.0, exponent), -exponent);
}

// The most ticks an axis gets, whatever the range of its values.
constexpr int kMaxTicks = 12;

void StridePanel(Svg& svg, const Box& box, const std::vector<StridePoint>& points) {
  Frame(svg, box, "Loads at stride s: time vs. measured bank-conflict ways");
  std::vector<const StridePoint*> drawn;
  for (const StridePoint& p : points)
    if (std::isfinite(p.ways) && std::isfinite(p.relative) && p.ways > 0 && p.relative > 0)
      drawn.push_back(&p);
  svg.Text(box.left + box.width / 2, box.bottom() + 40, "measured ways (load wavefronts / ideal), log scale");
  svg.Text(box.left - 48, box.top + box.height / 2, "time relative to stride 1, log scale", "middle", 12,
           -90);
  if (drawn.empty()) {
    Empty(svg, box, "no shared_stride results with a stride-1 run");
    return;
  }
  double lo = 1, hi = 2;
  for (const StridePoint* p : drawn) {
    lo = std::min({lo, p->ways, p->relative});
    hi = std::max({hi, p->ways, p->relative});
  }
  const double log_lo = std::log2(lo / 1.25), log_hi = std::log2(hi * 1.25);
  const auto x_of = [&](double v) {
    return box.left + (std::log2(v) - log_lo) / (log_hi - log_lo) * box.width;
  };
  const auto y_of = [&](double v) {
    return box.bottom() - (std::log2(v) - log_lo) / (log_hi - log_lo) * box.height;
  };
  // Every power of two, or every few when the range is wide: at most about kMaxTicks ticks.
  const int first = static_cast<int>(std::ceil(log_lo)), last = static_cast<int>(std::floor(log_hi));
  const int every = std::max(1, (last - first) / kMaxTicks + 1);
  for (int e = first; e <= last; e += every) {
    const double v = std::ldexp(1.0, e);
    svg.Line(x_of(v), box.top, x_of(v), box.bottom(), "#e0e0e0");
    svg.Line(box.left, y_of(v), box.right(), y_of(v), "#e0e0e0");
    svg.Line(x_of(v), box.bottom(), x_of(v), box.bottom() + 5, "black");
    svg.Line(box.left - 5, y_of(v), box.left, y_of(v), "black");
    svg.Text(x_of(v), box.bottom() + 19, PowerOfTwoLabel(e));
    svg.Text(box.left - 8, y_of(v) + 4, PowerOfTwoLabel(e), "end");
  }
  const double ends[2] = {std::exp2(log_lo), std::exp2(log_hi)};
  svg.Line(x_of(ends[0]), y_of(ends[0]), x_of(ends[1]), y_of(ends[1]), "#555555", 1.5, "5,3");

  std::vector<LegendEntry> legend;
  // A series per element size, in the order the sizes first appear.
  std::vector<int> sizes;
  std::vector<std::vector<const StridePoint*>> series_of_size;
  std::map<int, size_t> size_index;
  for (const StridePoint* p : drawn) {
    const auto [found, inserted] = size_index.emplace(p->elem_bytes, sizes.size());
    if (inserted) {
      sizes.push_back(p->elem_bytes);
      series_of_size.emplace_back();
    }
    series_of_size[found->second].push_back(p);
  }
  for (size_t s = 0; s < sizes.size(); ++s) {
    const char* color = kPalette[s % std::size(kPalette)];
    std::vector<const StridePoint*>& series = series_of_size[s];
    std::stable_sort(series.begin(), series.end(),
                     [](const StridePoint* a, const StridePoint* b) { return a->ways < b->ways; });
    std::vector<std::pair<double, double>> line;
    for (const StridePoint* p : series) line.emplace_back(x_of(p->ways), y_of(p->relative));
    svg.Polyline(line, color);
    for (const StridePoint* p : series) {
      svg.Marker(static_cast<int>(s), x_of(p->ways), y_of(p->relative), color,
                 std::to_string(p->elem_bytes) + "-byte, stride " + std::to_string(p->stride) + ": " +
                     Fixed(p->ways, 2) + " ways, " + Fixed(p->relative, 2) + "x the stride-1 time");
    }
    legend.push_back({std::to_string(sizes[s]) + "-byte elements", color, static_cast<int>(s)});
  }
  legend.push_back({"ideal: time = ways", "#555555", -2});
  Legend(svg, box, box.bottom() + 68, legend);
}

void TransposePanel(Svg& svg, const Box& box, const std::vector<TransposeBar>& bars) {
  Frame(svg, box, "Transpose bandwidth, % of the device-to-device copy");
  svg.Text(box.left + box.width / 2, box.bottom() + 40, "matrix (float)");
  svg.Text(box.left - 48, box.top + box.height / 2, "% of copy bandwidth (bytes read + written)", "middle",
           12, -90);
  std::vector<const TransposeBar*> drawn;
  for (const TransposeBar& b : bars)
    if (std::isfinite(b.pct_of_copy)) drawn.push_back(&b);
  if (drawn.empty()) {
    Empty(svg, box, "no transpose results with a copy ceiling");
    return;
  }
  std::vector<std::string> sizes, variants;
  std::map<std::string, size_t> size_index, variant_index;
  double top_pct = 100;
  for (const TransposeBar* b : drawn) {
    if (size_index.emplace(b->size, sizes.size()).second) sizes.push_back(b->size);
    if (variant_index.emplace(b->variant, variants.size()).second) variants.push_back(b->variant);
    top_pct = std::max(top_pct, b->pct_of_copy);
  }
  std::stable_sort(variants.begin(), variants.end(), [](const std::string& a, const std::string& b) {
    return VariantRank(a) < VariantRank(b);
  });
  for (size_t v = 0; v < variants.size(); ++v) variant_index[variants[v]] = v;
  // Ticks every 20 or 50 percent, or every 1, 2 or 5 times a power of ten for a larger range:
  // never more than about kMaxTicks, however large the values.
  double step = top_pct > 200 ? 50 : 20;
  if (const double wanted = top_pct * 1.08 / kMaxTicks; wanted > step) {
    const double decade = std::pow(10, std::floor(std::log10(wanted)));
    const double mantissa = wanted / decade;
    step = (mantissa <= 2 ? 2 : mantissa <= 5 ? 5 : 10) * decade;
  }
  const double y_max = std::ceil((top_pct * 1.08) / step) * step;
  const auto y_of = [&](double pct) { return box.bottom() - pct / y_max * box.height; };
  for (int tick = 0; tick <= kMaxTicks + 1 && tick * step <= y_max + 1e-9; ++tick) {
    const double t = tick * step;
    svg.Line(box.left, y_of(t), box.right(), y_of(t), "#e0e0e0");
    svg.Line(box.left - 5, y_of(t), box.left, y_of(t), "black");
    svg.Text(box.left - 8, y_of(t) + 4, Fixed(t, 0), "end");
  }
  svg.Line(box.left, y_of(100), box.right(), y_of(100), "#555555", 1, "5,3");
  const auto color_of = [&](const std::string& variant) {
    static const char* const kFixed[] = {"#7f7f7f", "#d62728", "#1f77b4", "#2ca02c"};
    const int rank = VariantRank(variant);
    if (rank < 4) return kFixed[rank];
    return kPalette[(3 + variant_index.at(variant)) % std::size(kPalette)];
  };
  const double group = box.width / static_cast<double>(sizes.size());
  const double bar = group * 0.8 / static_cast<double>(variants.size());
  // The bars by size and variant, in the order they are drawn: one pass over the bars, not one per
  // size and variant.
  std::map<std::pair<size_t, size_t>, std::vector<const TransposeBar*>> cells;
  for (const TransposeBar* b : drawn) cells[{size_index[b->size], variant_index[b->variant]}].push_back(b);
  auto cell = cells.begin();
  for (size_t s = 0; s < sizes.size(); ++s) {
    const double group_left = box.left + group * static_cast<double>(s) + group * 0.1;
    svg.Line(box.left + group * (static_cast<double>(s) + 0.5), box.bottom(),
             box.left + group * (static_cast<double>(s) + 0.5), box.bottom() + 5, "black");
    svg.Text(box.left + group * (static_cast<double>(s) + 0.5), box.bottom() + 19, sizes[s]);
    for (; cell != cells.end() && cell->first.first == s; ++cell) {
      const size_t v = cell->first.second;
      for (const TransposeBar* b : cell->second) {
        const double x = group_left + bar * static_cast<double>(v);
        const double pct = std::min(b->pct_of_copy, y_max);
        svg.Rect(x + 1, y_of(pct), bar - 2, box.bottom() - y_of(pct), color_of(b->variant),
                 b->variant + " " + b->size + ": " + Fixed(b->gbps, 0) + " GB/s, " +
                     Fixed(b->pct_of_copy, 1) + "% of copy");
        svg.Text(x + bar / 2, y_of(pct) - 4, Fixed(b->pct_of_copy, 0, "%"), "middle", 11);
      }
    }
  }
  std::vector<LegendEntry> legend;
  for (const std::string& v : variants)
    legend.push_back({v == "copy" ? "copy (ceiling)" : v, color_of(v), -1});
  Legend(svg, box, box.bottom() + 68, legend);
}

}  // namespace

std::vector<BenchmarkResult> ParseBenchmarkResults(const std::string& text,
                                                   const std::filesystem::path& origin) {
  const nlohmann::json document = ParseJsonText(NullNonFinite(text), origin, kAdvice);
  const FieldReader root(document, origin.string(), kAdvice);
  const FieldReader list = root.Field("benchmarks");
  list.RequireArray();
  if (list.json().size() > kMaxBenchmarkEntries) {
    list.FailWith("holds " + std::to_string(list.json().size()) + " entries, more than the " +
                  std::to_string(kMaxBenchmarkEntries) + " bankcheck plot reads (limits.h)");
  }
  std::vector<std::string> order;
  std::map<std::string, Accumulated> by_name;
  for (size_t i = 0; i < list.json().size(); ++i) Accumulate(list.Element(i), order, by_name);

  std::vector<BenchmarkResult> results;
  for (const std::string& name : order) {
    Accumulated& a = by_name[name];
    BenchmarkResult result;
    if (a.has_median) {
      result = a.median;
    } else if (a.runs > 0) {
      result.name = name;
      result.seconds = a.seconds_sum / a.runs;
      for (const auto& [key, sum] : a.counter_sums) result.counters[key] = sum / a.runs;
    } else {
      result.name = name;
      result.seconds = kNaN;
      result.error = a.error.empty() ? "no runs" : a.error;
    }
    results.push_back(std::move(result));
  }
  return results;
}

std::vector<BenchmarkResult> ReadBenchmarkResults(const std::vector<std::filesystem::path>& files) {
  std::vector<BenchmarkResult> merged;
  std::map<std::string, size_t> index_of_name;
  for (const std::filesystem::path& file : files) {
    for (BenchmarkResult& result : ParseBenchmarkResults(ReadTextFile(file, kAdvice), file)) {
      const auto [found, inserted] = index_of_name.emplace(result.name, merged.size());
      if (inserted) {
        merged.push_back(std::move(result));
      } else {
        merged[found->second] = std::move(result);
      }
    }
  }
  return merged;
}

ConflictCost SummarizeConflictCost(const std::vector<BenchmarkResult>& results) {
  ConflictCost cost;
  std::map<std::string, double> copy_gbps;
  std::map<std::string, size_t> transpose_size_index;  // by first appearance
  std::map<std::string, size_t> puzzle_row;
  for (const BenchmarkResult& r : results) {
    if (!r.error.empty()) continue;
    const std::vector<std::string> parts = Split(r.name);
    if (parts.size() < 3) continue;
    if (parts[0] == "shared_stride" && r.counters.count("elem_bytes") && r.counters.count("stride")) {
      StridePoint p;
      p.elem_bytes = static_cast<int>(CounterOr(r, "elem_bytes", 0));
      p.stride = static_cast<int>(CounterOr(r, "stride", 0));
      p.seconds = r.seconds;
      p.ways = CounterOr(r, "ld_ways", kNaN);
      cost.strides.push_back(p);
    } else if (parts[0] == "transpose") {
      TransposeBar b;
      b.variant = parts[1];
      b.size = parts[2];
      b.seconds = r.seconds;
      b.gbps = CounterOr(r, "GB/s", CounterOr(r, "bytes_per_second", kNaN) / 1e9);
      b.pct_of_copy = CounterOr(r, "pct_of_copy", kNaN);
      if (b.variant == "copy") copy_gbps[b.size] = b.gbps;
      transpose_size_index.emplace(b.size, transpose_size_index.size());
      cost.transposes.push_back(b);
    } else if (parts[0] == "puzzle") {
      const auto [found, inserted] = puzzle_row.emplace(parts[2], cost.puzzles.size());
      if (inserted) cost.puzzles.push_back({parts[2], kNaN, kNaN, kNaN});
      PuzzleRow* row = &cost.puzzles[found->second];
      if (parts[1] == "no_conflict") row->no_conflict_seconds = r.seconds;
      if (parts[1] == "two_way") {
        row->two_way_seconds = r.seconds;
        row->two_way_conflicts = CounterOr(r, "ld_conflicts", kNaN) + CounterOr(r, "st_conflicts", kNaN);
      }
    }
  }

  std::map<int, double> stride1;
  for (const StridePoint& p : cost.strides)
    if (p.stride == 1) stride1[p.elem_bytes] = p.seconds;
  for (StridePoint& p : cost.strides) {
    const auto found = stride1.find(p.elem_bytes);
    p.relative = found == stride1.end() ? kNaN : p.seconds / found->second;
  }
  std::stable_sort(cost.strides.begin(), cost.strides.end(), [](const StridePoint& a, const StridePoint& b) {
    return std::make_pair(a.elem_bytes, a.stride) < std::make_pair(b.elem_bytes, b.stride);
  });

  for (TransposeBar& b : cost.transposes) {
    const auto found = copy_gbps.find(b.size);
    if (found != copy_gbps.end() && std::isfinite(found->second) && found->second > 0)
      b.pct_of_copy = 100.0 * b.gbps / found->second;
  }
  const auto size_index = [&](const std::string& size) { return transpose_size_index.at(size); };
  std::stable_sort(cost.transposes.begin(), cost.transposes.end(),
                   [&](const TransposeBar& a, const TransposeBar& b) {
                     return std::make_tuple(size_index(a.size), VariantRank(a.variant), a.variant) <
                            std::make_tuple(size_index(b.size), VariantRank(b.variant), b.variant);
                   });
  return cost;
}

std::string FormatConflictCostTables(const ConflictCost& cost) {
  std::string text = "Shared loads at stride s: time relative to stride 1 of the same element size\n";
  std::vector<TableRow> rows;
  for (const StridePoint& p : cost.strides) {
    rows.push_back({std::to_string(p.elem_bytes) + " B", std::to_string(p.stride), Fixed(p.ways, 2),
                    Fixed(p.seconds * 1e6, 1), Fixed(p.relative, 2, "x")});
  }
  text += rows.empty() ? "(no shared_stride results)\n"
                       : FormatTextTable({"element", "stride", "ld ways", "time (us)", "relative"}, rows);

  text += "\nTranspose: bytes read + written per second, and percent of the copy\n";
  rows.clear();
  for (const TransposeBar& b : cost.transposes) {
    rows.push_back(
        {b.size, b.variant, Fixed(b.seconds * 1e6, 1), Fixed(b.gbps, 1), Fixed(b.pct_of_copy, 1, "%")});
  }
  text += rows.empty() ? "(no transpose results)\n"
                       : FormatTextTable({"size", "variant", "time (us)", "GB/s", "of copy"}, rows);

  text += "\nPuzzle: the 2-way kernel's time relative to the conflict-free one\n";
  rows.clear();
  for (const PuzzleRow& p : cost.puzzles) {
    rows.push_back({p.elements, Fixed(p.no_conflict_seconds * 1e6, 2), Fixed(p.two_way_seconds * 1e6, 2),
                    Fixed(p.two_way_seconds / p.no_conflict_seconds, 3, "x"), Fixed(p.two_way_conflicts, 0)});
  }
  text +=
      rows.empty()
          ? "(no puzzle results)\n"
          : FormatTextTable(
                {"elements", "conflict-free (us)", "2-way (us)", "2-way / free", "2-way conflicts"}, rows);
  return text;
}

std::string RenderConflictCostSvg(const ConflictCost& cost) {
  Svg svg;
  svg.Text(kWidth / 2, 30, "What shared-memory bank conflicts cost in time", "middle", 18, 0, "bold");
  StridePanel(svg, Box{90, kPanelTop, 420, kPanelHeight}, cost.strides);
  TransposePanel(svg, Box{640, kPanelTop, 430, kPanelHeight}, cost.transposes);
  return svg.Finish();
}

}  // namespace bankcheck::cli
