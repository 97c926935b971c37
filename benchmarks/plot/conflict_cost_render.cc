// Drawing: the plain-text tables and the SVG of a ConflictCost (benchmark_results.cc reads and
// groups the benchmark programs' JSON into one).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>

#include "benchmark_plot.h"
#include "core/model/svg.h"
#include "core/reports/text_table.h"

namespace bankcheck::benchmarks {
namespace {

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

}  // namespace bankcheck::benchmarks
