#include "tools/src/report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#9c755f", "#9d9d9d"};

std::string num(double v) {
  return fmt_fixed(v, 1);
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + html_escape(s) + "</text>";
}

// Ticks at 1, 2, 5 x 10^k covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
  return out;
}

std::string short_number(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt_sig(v / 1e9) + "G";
  if (a >= 1e6) return fmt_sig(v / 1e6) + "M";
  if (a >= 1e3) return fmt_sig(v / 1e3) + "k";
  return fmt_sig(v);
}

}  // namespace

double text_width(const std::string& s) {
  std::size_t glyphs = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++glyphs;  // count UTF-8 lead bytes, not continuation bytes
  return std::ceil(7.2 * static_cast<double>(glyphs));
}

const char* palette_color(int index) {
  return kPalette[static_cast<std::size_t>(index) % (sizeof kPalette / sizeof kPalette[0])];
}

std::string svg_bar_chart(const std::string& title, const std::vector<Bar>& bars, bool log_scale,
                          double reference) {
  double label_w = 40, text_w = 60;
  for (const auto& b : bars) {
    label_w = std::max(label_w, text_width(b.label) + 12);
    text_w = std::max(text_w, text_width(b.text) + 10);
  }
  const double bar_w = 300, row_h = 22, top = 30;
  const double width = std::max(label_w + bar_w + text_w, text_width(title) + 12);
  const double height = top + row_h * static_cast<double>(bars.size()) + 10;
  double max_v = 0, min_v = std::numeric_limits<double>::max();
  for (const auto& b : bars)
    if (b.value > 0) {
      max_v = std::max(max_v, b.value);
      min_v = std::min(min_v, b.value);
    }
  if (reference > 0) max_v = std::max(max_v, reference);
  // Log bars start one decade below the smallest value so the smallest bar is still visible.
  const double log_lo = min_v < max_v ? std::floor(std::log10(min_v)) - 0.3 : std::log10(max_v) - 1;
  auto length = [&](double v) {
    if (v <= 0 || max_v <= 0) return 0.0;
    if (!log_scale) return bar_w * v / max_v;
    const double hi = std::log10(max_v);
    return bar_w * std::max(0.0, (std::log10(v) - log_lo) / (hi - log_lo));
  };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                  num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) +
                  " " + num(height) + "\" role=\"img\">";
  s += "<title>" + html_escape(title) + "</title>";
  s += text(4, 18, title, "start", " class=\"ctitle\"");
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double y = top + row_h * static_cast<double>(i);
    s += text(label_w - 6, y + 14, bars[i].label, "end");
    s += "<rect x=\"" + num(label_w) + "\" y=\"" + num(y + 3) + "\" width=\"" +
         num(length(bars[i].value)) + "\" height=\"" + num(row_h - 6) + "\" fill=\"" +
         palette_color(bars[i].color) + "\"/>";
    s += text(label_w + length(bars[i].value) + 5, y + 14, bars[i].text);
  }
  if (reference > 0) {
    const double x = label_w + length(reference);
    s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top - 4) + "\" x2=\"" + num(x) + "\" y2=\"" +
         num(height - 4) + "\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>";
  }
  return s + "</svg>";
}

std::string svg_line_chart(const std::string& title, const std::vector<Series>& series,
                           const Axis& xa, const Axis& ya, const ChartSize& size) {
  double right = size.legend;
  for (const auto& se : series) right = std::max(right, text_width(se.name) + 36);
  const double left = 70, top = 30, bottom = 45;
  const double width = std::max(size.width + right - size.legend, text_width(title) + 12),
               height = size.height;
  const double pw = width - left - right, ph = height - top - bottom;
  double x_lo = std::numeric_limits<double>::max(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  for (const auto& se : series)
    for (const auto& [x, y] : se.points) {
      if ((xa.log && x <= 0) || (ya.log && y <= 0)) continue;
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  if (x_lo > x_hi) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  if (!ya.log) y_lo = std::min(0.0, y_lo);
  if (y_hi <= y_lo) y_hi = y_lo + 1;
  if (x_hi <= x_lo) x_hi = x_lo + 1;
  if (!ya.log) y_hi *= 1.05;
  auto tx = [&](double v) {
    const double f =
        xa.log ? (std::log10(v) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo))
               : (v - x_lo) / (x_hi - x_lo);
    return left + pw * f;
  };
  auto ty = [&](double v) {
    const double f =
        ya.log ? (std::log10(v) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))
               : (v - y_lo) / (y_hi - y_lo);
    return top + ph * (1 - f);
  };
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
                  num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) +
                  " " + num(height) + "\" role=\"img\">";
  s += "<title>" + html_escape(title) + "</title>";
  s += text(4, 18, title, "start", " class=\"ctitle\"");
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(pw) + "\" height=\"" +
       num(ph) + "\" fill=\"none\" stroke=\"#999\"/>";
  auto xticks = xa.ticks;
  if (xticks.empty()) {
    const auto t = xa.log ? std::vector<double>{} : nice_ticks(x_lo, x_hi);
    for (double v : t) xticks.emplace_back(v, short_number(v));
    if (xa.log)
      for (double v = std::pow(10, std::ceil(std::log10(x_lo))); v <= x_hi; v *= 10)
        xticks.emplace_back(v, short_number(v));
  }
  for (const auto& [v, label] : xticks) {
    if (v < x_lo || v > x_hi) continue;
    const double x = tx(v);
    s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top) + "\" x2=\"" + num(x) + "\" y2=\"" +
         num(top + ph) + "\" stroke=\"#eee\"/>";
    s += text(x, top + ph + 16, label, "middle");
  }
  std::vector<double> yt;
  if (ya.log)
    for (double v = std::pow(10, std::ceil(std::log10(y_lo))); v <= y_hi; v *= 10) yt.push_back(v);
  else
    yt = nice_ticks(y_lo, y_hi);
  for (double v : yt) {
    const double y = ty(v);
    s += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + pw) +
         "\" y2=\"" + num(y) + "\" stroke=\"#eee\"/>";
    s += text(left - 6, y + 4, short_number(v), "end");
  }
  s += text(left + pw / 2, height - 8, xa.label, "middle");
  s += text(14, top + ph / 2, ya.label, "middle",
            (" transform=\"rotate(-90 14 " + num(top + ph / 2) + ")\"").c_str());
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::string pts, dot;
    std::size_t drawn = 0;
    for (const auto& [x, y] : series[i].points) {
      if ((xa.log && x <= 0) || (ya.log && y <= 0)) continue;
      if (!pts.empty()) pts += ' ';
      pts += num(tx(x));
      pts += ',';
      pts += num(ty(y));
      dot = "<circle cx=\"" + num(tx(x)) + "\" cy=\"" + num(ty(y)) + "\" r=\"3\"";
      ++drawn;
    }
    const char* color = palette_color(series[i].color >= 0 ? series[i].color : static_cast<int>(i));
    s += "<polyline fill=\"none\" stroke=\"" + std::string(color) +
         "\" stroke-width=\"2\" points=\"" + pts + "\"/>";
    // A one-point series (a 1 s round has one per-second entry) draws no line: mark the point.
    if (drawn == 1) s += dot + " fill=\"" + color + "\"/>";
    const double ly = top + 14 + 18 * static_cast<double>(i);
    s += "<rect x=\"" + num(width - right + 12) + "\" y=\"" + num(ly - 9) +
         "\" width=\"12\" height=\"10\" fill=\"" + color + "\"/>";
    s += text(width - right + 30, ly, series[i].name);
  }
  return s + "</svg>";
}

}  // namespace gatebench::tools
