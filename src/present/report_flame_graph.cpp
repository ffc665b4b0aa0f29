// SPDX-License-Identifier: Apache-2.0
// A flame graph (Brendan Gregg's picture) as one self-contained SVG file: the root at the bottom,
// each frame as wide as its share of the event's period, its callees above it. Its script zooms
// on the frame clicked, searches names by regular expression and shows a frame's figures under
// the pointer; everything is in the file, so it opens from disk in any browser.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "perfmon/printable.hpp"
#include "present/report_rows.hpp"

namespace perfmon {

namespace {

constexpr double kWidth = 1200, kPad = 10, kFrameHeight = 16, kTop = 40, kBottom = 30;
constexpr double kCharWidth = 7.2;  // of 12px monospace, as the script assumes too
constexpr double kMinWidth = 0.1;   // narrower frames are not drawn

// The label that fits a frame's width: whole, cut with "..", or none.
std::string fitted(std::string_view name, double width) {
  const auto chars = static_cast<std::size_t>(std::max(0.0, (width - 6) / kCharWidth));
  if (chars < 3) return "";
  if (name.size() <= chars) return std::string(name);
  std::size_t cut = chars - 2;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) --cut;  // not inside a character
  return std::string(name.substr(0, cut)) + "..";
}

// Warm colours for user code, blue-green for the kernel, each name always the same colour.
std::string colour(std::string_view name, bool kernel) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : name) hash = (hash ^ c) * 16777619u;
  const double v1 = (hash & 0xff) / 255.0, v2 = (hash >> 8 & 0xff) / 255.0, v3 = (hash >> 16 & 0xff) / 255.0;
  char text[32];
  if (kernel)
    std::snprintf(text, sizeof text, "rgb(%d,%d,%d)", static_cast<int>(50 + 60 * v1), static_cast<int>(150 + 60 * v2),
                  static_cast<int>(190 + 50 * v3));
  else
    std::snprintf(text, sizeof text, "rgb(%d,%d,%d)", static_cast<int>(205 + 50 * v3), static_cast<int>(230 * v1),
                  static_cast<int>(55 * v2));
  return text;
}

// A differential flame graph's colour: red where a frame's share grew, blue where it shrank, the
// deeper the larger the change against the largest; near white where it stayed.
std::string change_colour(double delta, double largest) {
  const double strength = largest <= 0 ? 0 : std::min(1.0, std::abs(delta) / largest);
  const int fade = static_cast<int>(230 - 200 * strength);
  char text[32];
  if (delta >= 0)
    std::snprintf(text, sizeof text, "rgb(255,%d,%d)", fade, fade);
  else
    std::snprintf(text, sizeof text, "rgb(%d,%d,255)", fade, fade);
  return text;
}

constexpr const char* kScript = R"JS(
"use strict";
(function () {
  const svg = (document.currentScript && document.currentScript.closest("svg")) || document.documentElement;
  const W = +svg.getAttribute("width"), PAD = 10, CHAR = 7.2;
  const frames = Array.from(svg.querySelectorAll("g.frame"));
  const byId = (id) => svg.querySelector("#" + id);
  const details = byId("details"), matched = byId("matched"), unzoomButton = byId("unzoom");
  for (const g of frames) {
    const r = g.querySelector("rect");
    g.fg = { x: +r.getAttribute("x"), w: +r.getAttribute("width"), depth: +g.getAttribute("data-depth"),
             name: g.getAttribute("data-name"), fill: r.getAttribute("fill") };
  }
  function fit(g, w) {
    const chars = Math.floor((w - 6) / CHAR), name = g.fg.name;
    g.querySelector("text").textContent = chars < 3 ? "" : name.length <= chars ? name : name.slice(0, chars - 2) + "..";
  }
  function place(g, x, w) {
    const r = g.querySelector("rect"), t = g.querySelector("text");
    r.setAttribute("x", x.toFixed(2));
    r.setAttribute("width", w.toFixed(2));
    t.setAttribute("x", (x + 3).toFixed(2));
    fit(g, w);
  }
  // The clicked frame fills the width; its ancestors span it, dimmed; what is beside it is hidden.
  function zoom(target) {
    const zx = target.fg.x, zw = target.fg.w, depth = target.fg.depth, scale = (W - 2 * PAD) / zw, eps = 1e-6;
    for (const g of frames) {
      const f = g.fg;
      if (f.depth < depth && f.x <= zx + eps && f.x + f.w >= zx + zw - eps) {
        g.style.display = "";
        g.classList.add("parent");
        place(g, PAD, W - 2 * PAD);
      } else if (f.depth >= depth && f.x >= zx - eps && f.x + f.w <= zx + zw + eps) {
        g.style.display = "";
        g.classList.remove("parent");
        place(g, PAD + (f.x - zx) * scale, f.w * scale);
      } else {
        g.style.display = "none";
      }
    }
    unzoomButton.style.opacity = "1";
  }
  function unzoom() {
    for (const g of frames) {
      g.style.display = "";
      g.classList.remove("parent");
      place(g, g.fg.x, g.fg.w);
    }
    unzoomButton.style.opacity = "0";
  }
  // Frames whose name matches turn magenta; the share shown counts nested matches once.
  function search(term) {
    const re = new RegExp(term);
    const hits = [];
    for (const g of frames) {
      const hit = re.test(g.fg.name);
      g.querySelector("rect").setAttribute("fill", hit ? "rgb(230,0,230)" : g.fg.fill);
      if (hit) hits.push(g.fg);
    }
    hits.sort((a, b) => a.x - b.x || a.depth - b.depth);
    let covered = 0, end = -Infinity;
    for (const f of hits) {
      if (f.x + f.w <= end) continue;
      covered += f.x + f.w - Math.max(f.x, end);
      end = f.x + f.w;
    }
    const share = (100 * covered) / (W - 2 * PAD);
    matched.textContent = "Matched: " + share.toFixed(1) + "%";
    return share;
  }
  function resetSearch() {
    for (const g of frames) g.querySelector("rect").setAttribute("fill", g.fg.fill);
    matched.textContent = "";
  }
  svg.addEventListener("click", (e) => {
    const g = e.target.closest("g.frame");
    if (g) zoom(g);
  });
  svg.addEventListener("mouseover", (e) => {
    const g = e.target.closest("g.frame");
    details.textContent = g ? g.querySelector("title").textContent : "";
  });
  unzoomButton.addEventListener("click", (e) => { e.stopPropagation(); unzoom(); });
  byId("search").addEventListener("click", (e) => {
    e.stopPropagation();
    const term = window.prompt("Search for (a regular expression):", "");
    if (term) search(term); else resetSearch();
  });
  window.flamegraph = { zoom, unzoom, search, resetSearch };
})();
)JS";

}  // namespace

namespace {

// Each node's share of the event's period in the base profile, where the base has a node of the
// same path (names from the root), by node of the new profile: what a differential graph colours.
std::vector<std::optional<double>> base_shares(const Profile& now, const EventProfile& event,
                                               const FlameGraphBase& base) {
  const EventProfile& before = base.profile.events().at(base.event);
  // The base's children by parent and name.
  std::map<std::pair<std::uint32_t, std::string_view>, std::uint32_t> child_of;
  for (std::uint32_t n = 1; n < before.stacks.size(); ++n)
    child_of.emplace(std::pair{before.stacks[n].parent, base.profile.name(before.stacks[n].name)}, n);
  std::vector<std::optional<std::uint32_t>> match(event.stacks.size());
  std::vector<std::optional<double>> shares(event.stacks.size());
  match[0] = 0;
  for (std::uint32_t n = 0; n < event.stacks.size(); ++n) {  // a parent comes before its children
    if (n > 0) {
      const std::optional<std::uint32_t> parent = match[event.stacks[n].parent];
      if (!parent) continue;
      auto found = child_of.find({*parent, now.name(event.stacks[n].name)});
      if (found == child_of.end()) continue;
      match[n] = found->second;
    }
    shares[n] = present::percent(before.stacks[*match[n]].period, before.period);
  }
  return shares;
}

}  // namespace

std::string format_flame_graph(const Profile& profile, std::size_t event_index, const std::string& title,
                               const FlameGraphBase* base) {
  const EventProfile& event = profile.events().at(event_index);
  const std::vector<std::vector<std::uint32_t>> children = present::stack_children(profile, event);
  const double scale = event.period == 0 ? 0 : (kWidth - 2 * kPad) / static_cast<double>(event.period);

  // Each drawn frame's place, depth first without recursion; children start where their parent does.
  struct Placed {
    std::uint32_t node;
    double x;
    std::uint32_t depth;
  };
  std::vector<Placed> placed, todo{{0, kPad, 0}};
  std::uint32_t max_depth = 0;
  while (!todo.empty()) {
    const Placed at = todo.back();
    todo.pop_back();
    placed.push_back(at);
    max_depth = std::max(max_depth, at.depth);
    double x = at.x;
    for (std::uint32_t child : children[at.node]) {
      const double width = static_cast<double>(event.stacks[child].period) * scale;
      if (width >= kMinWidth) todo.push_back({child, x, at.depth + 1});
      x += width;
    }
  }

  // A differential graph: each drawn frame's change in points, and the largest, for the colours.
  std::vector<std::optional<double>> was;
  double largest = 0;
  if (base != nullptr) {
    was = base_shares(profile, event, *base);
    for (const Placed& at : placed)
      largest = std::max(
          largest, std::abs(present::percent(event.stacks[at.node].period, event.period) - was[at.node].value_or(0.0)));
  }
  const double height = kTop + (max_depth + 1) * kFrameHeight + kBottom + (base != nullptr ? kFrameHeight : 0);
  char number[64];
  auto fixed = [&](double value) {
    std::snprintf(number, sizeof number, "%.2f", value);
    return std::string(number);
  };
  std::string out =
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
      fixed(kWidth) + "\" height=\"" + fixed(height) + "\" viewBox=\"0 0 " + fixed(kWidth) + " " + fixed(height) +
      "\">\n" +
      "<style>\n"
      "text { font-family: monospace; font-size: 12px; fill: #000; }\n"
      "#title { font-size: 17px; text-anchor: middle; }\n"
      ".button { cursor: pointer; fill: #335; }\n"
      "g.frame { cursor: pointer; }\n"
      "g.frame:hover rect { stroke: #000; stroke-width: 0.5; }\n"
      "g.parent { opacity: 0.5; }\n"
      "</style>\n"
      "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f0\"/>\n" +
      "<text id=\"title\" x=\"" + fixed(kWidth / 2) + "\" y=\"24\">" + xml_text(title) + "</text>\n" +
      "<text id=\"unzoom\" class=\"button\" x=\"" + fixed(kPad) +
      "\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n" + "<text id=\"search\" class=\"button\" x=\"" +
      fixed(kWidth - kPad) + "\" y=\"24\" text-anchor=\"end\">Search</text>\n" + "<text id=\"details\" x=\"" +
      fixed(kPad) + "\" y=\"" + fixed(height - 10) + "\"> </text>\n" + "<text id=\"matched\" x=\"" +
      fixed(kWidth - kPad) + "\" y=\"" + fixed(height - 10) + "\" text-anchor=\"end\"> </text>\n" +
      (base == nullptr ? std::string()
                       : "<text id=\"legend\" x=\"" + fixed(kPad) + "\" y=\"" + fixed(height - 10 - kFrameHeight) +
                             "\">Widths: the new profile. Colours: the change of each frame's share from the base, red "
                             "grew, blue shrank (deepest: " +
                             fixed(largest) + " points).</text>\n") +
      "<g id=\"frames\">\n";
  for (const Placed& at : placed) {
    const StackNode& node = event.stacks[at.node];
    const std::string_view name = at.node == 0 ? "all" : profile.name(node.name);
    const double width = static_cast<double>(node.period) * scale;
    const double y = kTop + (max_depth - at.depth) * kFrameHeight;
    const double share = present::percent(node.period, event.period);
    std::snprintf(number, sizeof number, "%.2f", share);
    std::string figures = std::to_string(node.samples) + " samples, " + number + "%";
    std::string fill = at.node == 0 ? std::string("rgb(200,200,200)") : colour(name, node.kernel);
    std::string changed;
    if (base != nullptr) {
      const double delta = share - was[at.node].value_or(0.0);
      char text[96];
      if (was[at.node])
        std::snprintf(text, sizeof text, "; was %.2f%%, %+.2f points", *was[at.node], delta);
      else
        std::snprintf(text, sizeof text, "; new, %+.2f points", delta);
      figures += text;
      fill = change_colour(delta, largest);
      std::snprintf(text, sizeof text, "%.4f", delta);
      changed = std::string(" data-delta=\"") + text + "\"";
    }
    out += "<g class=\"frame\" data-depth=\"" + std::to_string(at.depth) + "\" data-name=\"" + xml_text(name) + "\"" +
           changed + "><title>" + xml_text(name) + " (" + figures + ")</title><rect x=\"" + fixed(at.x) + "\" y=\"" +
           fixed(y) + "\" width=\"" + fixed(width) + "\" height=\"" + fixed(kFrameHeight - 1) + "\" rx=\"2\" fill=\"" +
           fill + "\"/><text x=\"" + fixed(at.x + 3) + "\" y=\"" + fixed(y + kFrameHeight - 4.5) + "\">" +
           xml_text(fitted(name, width)) + "</text></g>\n";
  }
  out += "</g>\n<script type=\"text/ecmascript\"><![CDATA[" + std::string(kScript) + "]]></script>\n</svg>\n";
  return out;
}

namespace present {
std::string flame_graph_shape(const Profile& profile, const ReportOptions&, const ReportView& view) {
  return format_flame_graph(profile, view.event,
                            (view.base != nullptr ? "Differential Flame Graph: " : "Flame Graph: ") + view.title,
                            view.base);
}
}  // namespace present

}  // namespace perfmon
