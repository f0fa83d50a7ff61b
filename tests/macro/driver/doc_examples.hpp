#pragma once
// docs/targets.md's examples, read from the page itself so that it cannot drift from the code:
// the lighttpd target, and the reference gateway as an image (its Containerfile, target file and
// template, with the build context its commands make). Shared by targets_doc_test (podman) and
// docker_runtime_test (docker).
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "macro/driver/system/children.hpp"

namespace gatebench::macro::testing {

// Every fenced block that follows a line "<!-- <kind>-example: NAME -->", by NAME.
inline std::map<std::string, std::string> examples(const std::string& page,
                                                   const std::string& kind = "target") {
  std::map<std::string, std::string> out;
  std::istringstream lines(page);
  std::string line, name, body;
  enum { outside, marked, inside } state = outside;
  const std::string marker = "<!-- " + kind + "-example: ";
  while (std::getline(lines, line)) {
    if (state == outside && line.rfind(marker, 0) == 0) {
      name = line.substr(marker.size(), line.find(" -->") - marker.size());
      state = marked;
    } else if (state == marked && line.rfind("```", 0) == 0) {
      body.clear();
      state = inside;
    } else if (state == inside && line.rfind("```", 0) == 0) {
      out[name] = body;
      state = outside;
    } else if (state == inside) {
      body += line + "\n";
    }
  }
  return out;
}

inline std::string targets_page() {
  std::ifstream in(std::string(GATEBENCH_SOURCE_DIR) + "/docs/targets.md");
  std::stringstream page;
  page << in.rdbuf();
  return page.str();
}

// The image example's tag on the page; tests put one of their own in its place.
inline const std::string kPageImageTag = "localhost/mygw:1";

// Writes the page's image example into `dir`: Containerfile, mygw.json (its image `tag`) and
// gateway.json, and context/rootfs with `gateway` and the libraries ldd lists at their host
// paths, as the page's commands make it. "" when done, else what is wrong.
inline std::string write_image_example(const std::string& dir, const std::string& gateway,
                                       const std::string& tag) {
  namespace fs = std::filesystem;
  auto files = examples(targets_page(), "image");
  for (const char* name : {"Containerfile", "mygw.json", "gateway.json"})
    if (!files.contains(name)) return std::string("docs/targets.md has no image example ") + name;
  if (files.size() != 3) return "docs/targets.md has more than three image examples";
  std::string& target = files["mygw.json"];
  if (target.find(kPageImageTag) == std::string::npos) return "mygw.json does not name the image";
  for (auto at = target.find(kPageImageTag); at != std::string::npos;
       at = target.find(kPageImageTag, at + tag.size()))
    target.replace(at, kPageImageTag.size(), tag);
  for (const auto& [name, text] : files) std::ofstream(dir + "/" + name) << text;

  const fs::path rootfs = fs::path(dir) / "context" / "rootfs";
  auto copy_in = [](const std::string& file, const fs::path& to) {
    fs::create_directories(to.parent_path());
    fs::copy_file(file, to, fs::copy_options::overwrite_existing);
  };
  copy_in(gateway, rootfs / "usr/local/bin/gatebench-gateway");
  const CaptureResult ldd = run_capture("ldd", {gateway}, std::chrono::seconds(10));
  if (!ldd.succeeded()) return "ldd " + gateway + ": " + ldd.output;
  std::istringstream words(ldd.output);
  for (std::string word; words >> word;)
    if (word.front() == '/') copy_in(word, rootfs / fs::path(word).relative_path());
  return "";
}

}  // namespace gatebench::macro::testing
