#include "tools/src/profile/flamegraph.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

struct Frame {
  int fn;
  double amount;
  std::vector<Frame> children;
};

// Deterministic warm colour per name, as flame graphs conventionally use.
std::string colour(const std::string& name) {
  unsigned h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  const int r = 205 + static_cast<int>(h % 50);
  const int g = 80 + static_cast<int>((h >> 8) % 120);
  const int b = 30 + static_cast<int>((h >> 16) % 40);
  return "rgb(" + std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b) + ")";
}

// Draws the frame trees; `total` is the width of the plot, in the profile's event.
std::string render(std::vector<Frame>& roots, const std::vector<std::string>& names,
                   const std::string& event, double total, const FlameGraphOptions& opt) {
  // Siblings in name order, so the same profile always draws the same picture.
  int max_depth = 0;
  std::function<void(std::vector<Frame>&, int)> arrange = [&](std::vector<Frame>& level, int d) {
    std::sort(level.begin(), level.end(),
              [&](const Frame& a, const Frame& b) { return names[a.fn] < names[b.fn]; });
    for (auto& f : level) {
      max_depth = std::max(max_depth, d + 1);
      arrange(f.children, d + 1);
    }
  };
  arrange(roots, 0);

  const double row = 17, top = 34, pad = 10;
  const double plot_w = opt.width - 2 * pad;
  const double height = top + row * max_depth + 24;
  std::string s =
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
      fmt_fixed(opt.width, 0) + "\" height=\"" + fmt_fixed(height, 0) + "\" viewBox=\"0 0 " +
      fmt_fixed(opt.width, 0) + " " + fmt_fixed(height, 0) +
      "\" font-family=\"monospace\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#fdfdf6\"/>\n";
  s += "<text x=\"" + fmt_fixed(opt.width / 2, 1) +
       "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\">" + html_escape(opt.title) +
       "</text>\n";
  s += "<text x=\"" + fmt_fixed(pad, 1) + "\" y=\"" + fmt_fixed(height - 8, 1) + "\">" +
       html_escape("total " + fmt_sig(total, 4) + " " + event +
                   " · width = share of cost · hover a frame for its name and cost") +
       "</text>\n";
  // Icicle layout inverted: roots at the bottom, callees stacked above, as flamegraph.pl does.
  std::function<void(const Frame&, double, int)> draw = [&](const Frame& f, double x0, int depth) {
    const double w = plot_w * f.amount / total;
    const double y = top + row * (max_depth - 1 - depth);
    const std::string& name = names[f.fn];
    const std::string tip = name + " (" + fmt_sig(f.amount, 4) + " " + event + ", " +
                            fmt_percent(f.amount / total, false) + ")";
    s += "<g><title>" + html_escape(tip) + "</title><rect x=\"" + fmt_fixed(pad + x0, 2) +
         "\" y=\"" + fmt_fixed(y, 1) + "\" width=\"" + fmt_fixed(std::max(w - 0.5, 0.1), 2) +
         "\" height=\"" + fmt_fixed(row - 1, 1) + "\" fill=\"" + colour(name) + "\" rx=\"2\"/>";
    const std::size_t chars = static_cast<std::size_t>(std::max(0.0, (w - 6) / 6.6));
    if (chars >= 3) {
      std::string label = name.size() > chars ? name.substr(0, chars - 2) + ".." : name;
      s += "<text x=\"" + fmt_fixed(pad + x0 + 3, 2) + "\" y=\"" + fmt_fixed(y + row - 5, 1) +
           "\">" + html_escape(label) + "</text>";
    }
    s += "</g>\n";
    double cx = x0;
    for (const auto& c : f.children) {
      draw(c, cx, depth + 1);
      cx += plot_w * c.amount / total;
    }
  };
  double x = 0;
  for (const auto& r : roots) {
    draw(r, x, 0);
    x += plot_w * r.amount / total;
  }
  return s + "</svg>\n";
}

}  // namespace

std::string flamegraph_svg(const CallgrindProfile& p, const FlameGraphOptions& opt) {
  const int n = static_cast<int>(p.names.size());
  std::vector<double> incoming(static_cast<std::size_t>(n), 0.0);
  for (const auto& [edge, cost] : p.calls)
    if (edge.first != edge.second) incoming[static_cast<std::size_t>(edge.second)] += cost;
  double total = 0;
  std::vector<Frame> roots;
  for (int f = 0; f < n; ++f) {
    const double root_amount = p.inclusive(f) - incoming[static_cast<std::size_t>(f)];
    if (root_amount > 0) {
      roots.push_back({f, root_amount, {}});
      total += root_amount;
    }
  }
  const double min_amount = total * opt.min_fraction;
  std::vector<int> stack;
  std::function<void(Frame&, int)> expand = [&](Frame& frame, int depth) {
    const double inc = p.inclusive(frame.fn);
    if (depth >= opt.max_depth || inc <= 0) return;
    const double scale = frame.amount / inc;
    stack.push_back(frame.fn);
    for (auto it = p.calls.lower_bound({frame.fn, -1});
         it != p.calls.end() && it->first.first == frame.fn; ++it) {
      const int callee = it->first.second;
      const double amount = it->second * scale;
      if (amount < min_amount) continue;
      if (std::find(stack.begin(), stack.end(), callee) != stack.end()) continue;
      frame.children.push_back({callee, amount, {}});
      expand(frame.children.back(), depth + 1);
    }
    stack.pop_back();
  };
  for (auto& r : roots) expand(r, 0);
  return render(roots, p.names, p.event, total, opt);
}

std::string flamegraph_svg(const StackProfile& p, const FlameGraphOptions& opt) {
  // A trie of the stacks: identical call paths share frames, so widths are exact.
  std::vector<Frame> roots;
  for (const auto& sample : p.samples) {
    std::vector<Frame>* level = &roots;
    for (std::size_t d = 0; d < sample.frames.size() && static_cast<int>(d) < opt.max_depth; ++d) {
      const int fn = sample.frames[d];
      auto it =
          std::find_if(level->begin(), level->end(), [&](const Frame& f) { return f.fn == fn; });
      if (it == level->end()) it = level->insert(level->end(), Frame{fn, 0, {}});
      it->amount += sample.weight;
      level = &it->children;
    }
  }
  const double min_amount = p.total * opt.min_fraction;
  std::function<void(std::vector<Frame>&)> prune = [&](std::vector<Frame>& level) {
    std::erase_if(level, [&](const Frame& f) { return f.amount < min_amount; });
    for (auto& f : level) prune(f.children);
  };
  prune(roots);
  return render(roots, p.names, p.event, p.total, opt);
}

}  // namespace gatebench::tools
