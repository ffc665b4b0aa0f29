// SPDX-License-Identifier: Apache-2.0
// perfmon report's pictures looked at as a person would, in headless Chromium: the flame graph
// drawn, zoomed by a click and searched; the differential one coloured by change; speedscope's own
// page showing the profile.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process.hpp"
#include "report_fixture.hpp"

namespace perfmon::testing {
namespace {

// --- The flame graph in a browser ---------------------------------------------------------------

// An RGB(A) picture decoded from a PNG file (8 bits per channel, not interlaced: what Chromium writes).
struct Picture {
  std::uint32_t width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;
};

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  return static_cast<std::uint32_t>(
      static_cast<std::uint8_t>(bytes[at]) << 24 | static_cast<std::uint8_t>(bytes[at + 1]) << 16 |
      static_cast<std::uint8_t>(bytes[at + 2]) << 8 | static_cast<std::uint8_t>(bytes[at + 3]));
}

Picture decode_png(const std::string& png) {
  Picture picture;
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return picture;
  std::string compressed;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t length = big_endian(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) return picture;
    if (type == "IHDR") {
      picture.width = big_endian(png, at + 8);
      picture.height = big_endian(png, at + 12);
      if (png[at + 16] != 8 || png[at + 20] != 0) return {};  // 8 bits, no interlace
      picture.channels = png[at + 17] == 6 ? 4 : png[at + 17] == 2 ? 3 : 0;
    }
    if (type == "IDAT") compressed += png.substr(at + 8, length);
    at += 12 + length;
  }
  if (picture.channels == 0) return {};
  const std::size_t stride = picture.width * picture.channels;
  std::vector<std::uint8_t> raw((stride + 1) * picture.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()) != Z_OK ||
      size != raw.size())
    return {};
  picture.pixels.resize(stride * picture.height);
  for (std::uint32_t y = 0; y < picture.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* in = &raw[y * (stride + 1) + 1];
    std::uint8_t* out = &picture.pixels[y * stride];
    const std::uint8_t* up = y > 0 ? out - stride : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= picture.channels ? out[x - picture.channels] : 0, b = up ? up[x] : 0,
                c = up && x >= picture.channels ? up[x - picture.channels] : 0;
      int predicted = 0;
      if (filter == 1) predicted = a;
      if (filter == 2) predicted = b;
      if (filter == 3) predicted = (a + b) / 2;
      if (filter == 4) {
        const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
        predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[x] = static_cast<std::uint8_t>(in[x] + predicted);
    }
  }
  return picture;
}

class FlameGraph : public Report {
 protected:
  void SetUp() override {
    if (access("/usr/bin/chromium", X_OK) != 0)
      GTEST_SKIP() << "Debian's chromium is not installed (scripts/install-deps installs it)";
    Report::SetUp();
    record_call_tree();
    svg_ = (dir_ / "flame.svg").string();
    Result r = run({PERFMON, "report", "-i", file_, "--svg", svg_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Headless Chromium as root needs --no-sandbox; the profile directory keeps it off $HOME.
  Result chromium(std::vector<std::string> args) const {
    args.insert(args.begin(), {"/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                               "--user-data-dir=" + (dir_ / "profile").string(), "--window-size=1200,400"});
    return run(args);
  }
  std::string svg_;
};

TEST_F(FlameGraph, ScreenshotShowsTheFrames) {
  const std::string shot = (dir_ / "flame.png").string();
  Result r = chromium({"--screenshot=" + shot, "file://" + svg_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Picture picture = decode_png(read_file(shot));
  ASSERT_EQ(picture.width, 1200u) << "not a PNG of the window's size";
  // Frames of user code are drawn in warm colours (red 205 and up, blue 55 and below): the stack of
  // five frames spans the width, so they cover far more than a few percent of the picture.
  std::size_t warm = 0;
  for (std::size_t p = 0; p + 2 < picture.pixels.size(); p += picture.channels)
    warm += picture.pixels[p] >= 205 && picture.pixels[p + 2] <= 55;
  const double share = static_cast<double>(warm) / (picture.width * picture.height);
  EXPECT_GE(share, 0.10) << "the frames are not drawn";
}

// The SVG inside a page whose script clicks a frame and searches through the picture's own
// controls, then writes what it saw into the page, which Chromium prints (--dump-dom).
TEST_F(FlameGraph, ClickZoomsAndSearchFindsTheShare) {
  const std::string page = (dir_ / "page.html").string();
  std::ofstream(page) << "<!DOCTYPE html><html><body>" << read_file(svg_).substr(read_file(svg_).find("<svg"))
                      << R"(<script>
const seen = {errors: []};
window.addEventListener("error", (e) => seen.errors.push(String(e.message)));
window.addEventListener("load", () => {
  try {
    const frames = Array.from(document.querySelectorAll("g.frame"));
    seen.frames = frames.length;
    const a = frames.find((g) => g.getAttribute("data-name") === "perfmon_branch_a");
    a.querySelector("rect").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    seen.zoomed_width = +a.querySelector("rect").getAttribute("width");
    seen.b_hidden = frames.find((g) => g.getAttribute("data-name") === "perfmon_branch_b").style.display === "none";
    seen.label = a.querySelector("text").textContent;
    window.prompt = () => "perfmon_branch_a";
    document.getElementById("search").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    seen.matched = document.getElementById("matched").textContent;
    document.getElementById("unzoom").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    seen.unzoomed_width = +a.querySelector("rect").getAttribute("width");
  } catch (e) {
    seen.errors.push(String(e));
  }
  const out = document.createElement("pre");
  out.id = "seen";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
});
</script></body></html>)";
  Result r = chromium({"--virtual-time-budget=5000", "--dump-dom", "file://" + page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t start = r.out.find("<pre id=\"seen\">");
  ASSERT_NE(start, std::string::npos) << r.out.substr(0, 2000);
  const std::size_t from = start + std::strlen("<pre id=\"seen\">");
  std::string text = r.out.substr(from, r.out.find("</pre>", from) - from);
  for (std::size_t at; (at = text.find("&quot;")) != std::string::npos;) text.replace(at, 6, "\"");
  const auto seen = nlohmann::json::parse(text);
  EXPECT_TRUE(seen["errors"].empty()) << seen;
  EXPECT_GE(seen["frames"].get<int>(), 6) << seen;                        // all, the command, libc, main, a, b, syscall
  EXPECT_NEAR(seen["zoomed_width"].get<double>(), 1180.0, 0.01) << seen;  // the clicked frame fills the width
  EXPECT_TRUE(seen["b_hidden"].get<bool>()) << seen;
  EXPECT_EQ(seen["label"], "perfmon_branch_a") << seen;
  EXPECT_EQ(seen["matched"], "Matched: 75.0%") << seen;  // 300 of 400 samples
  EXPECT_NEAR(seen["unzoomed_width"].get<double>(), 1180.0 * 0.75, 0.01) << seen;
}

// A differential flame graph (report --svg --diff BASE): the base runs the worker's call tree of
// 100 (300 calls under branch a, 100 under b) and 400 plain calls; the new file the tree of 200 and
// 100 plain calls. The tree's frames grew (red), the plain calls' frame shrank (blue).
class DifferentialFlameGraph : public FlameGraph {
 protected:
  void SetUp() override {
    FlameGraph::SetUp();
    if (IsSkipped()) return;
    base_ = (dir_ / "base.data").string();
    now_ = (dir_ / "new.data").string();
    record(base_, 100, 400);
    record(now_, 200, 100);
    Result r = run({PERFMON, "report", "-i", now_, "--svg", svg_, "--diff", base_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void record(const std::string& file, int tree, int plain) const {
    const std::string script = std::string("'") + WORKER + "' tree-getppid " + std::to_string(tree) + "; '" + WORKER +
                               "' getppid " + std::to_string(plain);
    Result r = run({PERFMON, "record", "-q", "-g", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-o", file, "--",
                    "/bin/sh", "-c", script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // A frame's data-delta, by name (the first frame of that name).
  double delta_of(const std::string& svg, const std::string& name) const {
    const std::size_t at = svg.find("data-name=\"" + name + "\" data-delta=\"");
    if (at == std::string::npos) return std::nan("");
    const std::size_t from = svg.find("data-delta=\"", at) + std::strlen("data-delta=\"");
    return std::stod(svg.substr(from, svg.find('"', from) - from));
  }
  std::string base_, now_;
};

TEST_F(DifferentialFlameGraph, FramesCarryTheirChangeInPoints) {
  const std::string svg = read_file(svg_);
  // Base: 400 of 801 calls in the tree (300 a, 100 b); new: 800 of 901 (600 a, 200 b).
  EXPECT_NEAR(delta_of(svg, "perfmon_branch_a"), 100.0 * 600 / 901 - 100.0 * 300 / 801, 0.1) << svg.substr(0, 3000);
  EXPECT_NEAR(delta_of(svg, "perfmon_branch_b"), 100.0 * 200 / 901 - 100.0 * 100 / 801, 0.1);
  EXPECT_NEAR(delta_of(svg, "all"), 0.0, 1e-9);
  EXPECT_NE(svg.find("Differential Flame Graph: "), std::string::npos);
  EXPECT_NE(svg.find("id=\"legend\""), std::string::npos);
  EXPECT_NE(svg.find("was 37.45%, +29.14 points"), std::string::npos);  // branch a's title
  // Against itself, every frame is unchanged.
  const std::string same = (dir_ / "same.svg").string();
  ASSERT_EQ(run({PERFMON, "report", "-i", now_, "--svg", same, "--diff", now_}).exit_code, 0);
  const std::string itself = read_file(same);
  for (std::size_t at = 0; (at = itself.find("data-delta=\"", at)) != std::string::npos; ++at)
    EXPECT_EQ(itself.substr(at + 12, 7), "0.0000\"") << itself.substr(at, 40);
}

TEST_F(DifferentialFlameGraph, ScreenshotShowsGrowthRedAndShrinkageBlue) {
  const std::string shot = (dir_ / "diff.png").string();
  Result r = chromium({"--screenshot=" + shot, "file://" + svg_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Picture picture = decode_png(read_file(shot));
  ASSERT_EQ(picture.width, 1200u);
  std::size_t red = 0, blue = 0;
  for (std::size_t p = 0; p + 2 < picture.pixels.size(); p += picture.channels) {
    const int r8 = picture.pixels[p], g8 = picture.pixels[p + 1], b8 = picture.pixels[p + 2];
    red += r8 >= 240 && g8 <= 100 && b8 <= 100;
    blue += b8 >= 240 && r8 <= 100 && g8 <= 100;
  }
  const double area = static_cast<double>(picture.width) * picture.height;
  EXPECT_GE(red / area, 0.02) << "the frames that grew are not drawn red";
  EXPECT_GE(blue / area, 0.002) << "the frame that shrank is not drawn blue";
}

TEST_F(DifferentialFlameGraph, FoldedStacksCarryBothCountsAsDifffoldedWritesThem) {
  Result r = run({PERFMON, "report", "-i", now_, "--folded", "--diff", base_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(";main;perfmon_branch_a;syscall 300 600\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(";main;perfmon_branch_b;syscall 100 200\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("syscall 400 100\n"), std::string::npos) << r.out;  // the plain calls' stack, however framed
}

TEST_F(DifferentialFlameGraph, DiffNeedsTheSvgOrFoldedStacks) {
  Result r = run({PERFMON, "report", "-i", now_, "--diff", base_});
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("--diff BASE draws a differential flame graph, or its two-count folded stacks"),
            std::string::npos)
      << r.err;
}

// report --speedscope, loaded by speedscope's own page (npm's speedscope, which scripts/install-deps
// fetches) from a web server on loopback, in headless Chromium: the page names the profile's
// thread, and draws its frames.
class Speedscope : public FlameGraph {
 protected:
  static constexpr const char* kPage = "/usr/local/share/perfmon/npm/node_modules/speedscope/dist/release";
  void SetUp() override {
    if (access((std::string(kPage) + "/index.html").c_str(), R_OK) != 0)
      GTEST_SKIP() << "speedscope's page is missing (scripts/install-deps fetches it from npm into " << kPage << ")";
    FlameGraph::SetUp();
    if (IsSkipped()) return;
    site_ = dir_ / "site";
    fs::copy(kPage, site_, fs::copy_options::recursive);
    Result r = run({PERFMON, "report", "-i", file_, "--speedscope", (site_ / "profile.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::path site_;
};

TEST_F(Speedscope, TheFileHasAProfilePerThreadWithThePeriods) {
  const auto data = nlohmann::json::parse(read_file((site_ / "profile.json").string()));
  EXPECT_EQ(data["$schema"], "https://www.speedscope.app/file-format-schema.json");
  ASSERT_EQ(data["profiles"].size(), 1u);  // one thread sampled
  const auto& profile = data["profiles"][0];
  EXPECT_EQ(profile["type"], "sampled");
  EXPECT_TRUE(profile["name"].get<std::string>().starts_with("syscalls:sys_enter_getppid: perfmon-test-wo-"));
  EXPECT_EQ(profile["endValue"], 400);
  // The stacks through perfmon_branch_a weigh 300, through b 100.
  std::map<std::string, std::uint64_t> through;
  for (std::size_t k = 0; k < profile["samples"].size(); ++k)
    for (const auto& index : profile["samples"][k])
      through[data["shared"]["frames"][index.get<std::size_t>()]["name"]] += profile["weights"][k].get<std::uint64_t>();
  EXPECT_EQ(through["perfmon_branch_a"], 300u);
  EXPECT_EQ(through["perfmon_branch_b"], 100u);
}

TEST_F(Speedscope, SpeedscopesPageShowsTheProfile) {
  Process server({"/usr/bin/python3", "-c",
                  "import http.server, functools, sys\n"
                  "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])\n"
                  "server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)\n"
                  "print(server.server_address[1], flush=True)\n"
                  "server.serve_forever()\n",
                  site_.string()});
  const std::string port = server.read_stdout_until("\n");
  ASSERT_FALSE(port.empty());
  const std::string base = "http://127.0.0.1:" + port.substr(0, port.find('\n'));
  const std::string url = base + "/index.html#profileURL=" + base + "/profile.json";
  Result dom = chromium({"--virtual-time-budget=8000", "--dump-dom", url});
  const std::string shot = (dir_ / "speedscope.png").string();
  Result picture_run = chromium({"--virtual-time-budget=8000", "--screenshot=" + shot, url});
  server.signal(SIGTERM);
  server.wait();
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find("syscalls:sys_enter_getppid: perfmon-test-wo-"), std::string::npos) << dom.out.substr(0, 2000);
  ASSERT_EQ(picture_run.exit_code, 0) << picture_run.err;
  // The frames are drawn in speedscope's pastel colours: much of the picture is neither white nor grey.
  const Picture picture = decode_png(read_file(shot));
  std::size_t coloured = 0;
  for (std::size_t p = 0; p + 2 < picture.pixels.size(); p += picture.channels) {
    const int r8 = picture.pixels[p], g8 = picture.pixels[p + 1], b8 = picture.pixels[p + 2];
    coloured += std::max({r8, g8, b8}) - std::min({r8, g8, b8}) >= 30;
  }
  EXPECT_GE(static_cast<double>(coloured) / (picture.width * picture.height), 0.05) << "no frames drawn";
}

}  // namespace
}  // namespace perfmon::testing
