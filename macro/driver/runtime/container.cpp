#include "macro/driver/runtime/container.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/env_info.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// The shared libraries of `exe` by absolute path, as the dynamic loader resolves them here.
std::vector<std::string> shared_libraries(const std::string& exe) {
  auto ldd = Toolbox().find("ldd");
  if (!ldd) throw ContainerError("ldd not installed");
  CaptureResult r = run_capture(*ldd, {exe}, 10s);
  std::vector<std::string> libs;
  // A static binary (caddy) makes ldd fail with "not a dynamic executable": no libraries.
  if (!r.succeeded()) return libs;
  std::istringstream in(r.output);
  std::string word;
  while (in >> word) {
    if (word.front() == '/') libs.push_back(word);
  }
  return libs;
}

void copy_into(const fs::path& rootfs, const std::string& file) {
  fs::path target = rootfs / fs::path(file).relative_path();
  fs::create_directories(target.parent_path());
  fs::copy_file(file, target, fs::copy_options::overwrite_existing);
}

std::string image_tag(const std::string& exe) {
  std::string name = fs::path(exe).filename().string();
  std::string tag = "localhost/gatebench-";
  for (char c : name) {
    tag += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  }
  return tag + ":latest";
}

}  // namespace

std::string ensure_image(const ContainerEngine& engine, const std::string& exe,
                         const std::string& work_dir) {
  static std::map<std::string, std::string> built;  // host executable -> tag, this run
  if (auto it = built.find(exe); it != built.end()) return it->second;
  const std::string tag = image_tag(exe);
  const fs::path context = fs::path(work_dir) / fs::path(exe).filename();
  const fs::path rootfs = context / "rootfs";
  std::error_code ec;
  fs::remove_all(rootfs, ec);
  try {
    copy_into(rootfs, exe);
    for (const auto& lib : shared_libraries(exe)) copy_into(rootfs, lib);
    for (const char* dir : {"tmp", "run", "var/lib/nginx", "var/log/nginx", "etc"}) {
      fs::create_directories(rootfs / dir);
    }
    std::ofstream(rootfs / "etc/passwd") << "root:x:0:0:root:/root:/bin/sh\n"
                                            "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n";
    std::ofstream(rootfs / "etc/group") << "root:x:0:\nnogroup:x:65534:\n";
    fs::permissions(rootfs / "tmp", fs::perms::all | fs::perms::sticky_bit);
  } catch (const fs::filesystem_error& e) {
    throw ContainerError(std::string("image context for ") + exe + ": " + e.what());
  }
  CaptureResult r = run_capture(
      engine.exe,
      engine_args(engine, {"build", "-q", "-t", tag, "-f", engine.containerfile, context.string()}),
      kImageBuildTimeout);
  if (!r.succeeded()) {
    throw ContainerError(engine.name + " build of " + tag + " failed: " + last_line(r.output));
  }
  built[exe] = tag;
  return tag;
}

ContainerEngine local_engine(const std::string& name) {
  ContainerEngine engine;
  engine.name = name;
  engine.exe = Toolbox().find(name).value_or(name);
  engine.containerfile = (fs::path(source_dir()) / "macro" / "images" / "Containerfile").string();
  // Extra engine arguments (e.g. --security-opt, --ulimit), split on spaces.
  if (const char* extra = std::getenv("GATEBENCH_ENGINE_ARGS")) {
    std::istringstream words(extra);
    std::string word;
    while (words >> word) engine.extra_args.push_back(word);
  }
  return engine;
}

std::string engine_unreachable(const std::string& name, const std::string& exe) {
  if (name != "docker") return "";                    // podman runs containers without a daemon
  static std::map<std::string, std::string> answers;  // client -> why not, this run
  if (auto it = answers.find(exe); it != answers.end()) return it->second;
  std::string why;
  try {
    const CaptureResult r = run_capture(exe, {"version", "--format", "{{.Server.Version}}"}, 15s);
    if (!r.succeeded())
      why = "no Docker engine answers (docker version: " + last_line(r.output) + ")";
  } catch (const SpawnError& e) {
    why = std::string("docker: ") + e.what();
  }
  return answers[exe] = why;
}

ImageInfo parse_image_inspect(const std::string& output) {
  try {
    const auto j = nlohmann::json::parse(output.substr(output.find('[')));
    ImageInfo info;
    info.id = j.at(0).at("Id").get<std::string>();
    // docker writes the ID as "sha256:<hex>", podman as the hex alone.
    if (info.id.starts_with("sha256:")) info.id.erase(0, 7);
    info.digest = j.at(0).value("Digest", "");
    const auto repo_digests = j.at(0).find("RepoDigests");
    if (info.digest.empty() && repo_digests != j.at(0).end() && repo_digests->is_array() &&
        !repo_digests->empty()) {
      const std::string first = repo_digests->at(0).get<std::string>();
      if (const size_t at = first.find('@'); at != std::string::npos)
        info.digest = first.substr(at + 1);
    }
    return info;
  } catch (const std::exception& e) {
    throw ContainerError("unreadable image inspect output: " + std::string(e.what()));
  }
}

ImageInfo inspect_image(const std::string& engine_exe, const std::string& image) {
  CaptureResult r = run_capture(engine_exe, {"image", "inspect", image}, 30s);
  if (!r.succeeded()) throw ContainerError(last_line(r.output));
  return parse_image_inspect(r.output);
}

std::vector<std::string> engine_args(const ContainerEngine& engine, std::vector<std::string> args) {
  args.insert(args.begin(), engine.global_args.begin(), engine.global_args.end());
  return args;
}

std::vector<std::string> container_run_args(const ContainerEngine& engine, const ContainerRun& run,
                                            const std::string& verb) {
  std::vector<std::string> a = {verb, "--rm", "--name", run.name, "--network", "host"};
  if (!run.cpus.empty()) a.insert(a.end(), {"--cpuset-cpus", run.cpus.to_string()});
  if (run.timeout_s > 0 && engine.name != "docker")
    a.insert(a.end(), {"--timeout", std::to_string(run.timeout_s)});
  for (const auto& v : run.volumes) a.insert(a.end(), {"-v", v + ":" + v});
  for (const auto& m : run.mounts) a.insert(a.end(), {"-v", m});
  for (const auto& [name, value] : run.env) a.insert(a.end(), {"-e", name + "=" + value});
  a.insert(a.end(), engine.extra_args.begin(), engine.extra_args.end());
  a.push_back(run.image);
  if (!run.exe.empty()) a.push_back(run.exe);
  a.insert(a.end(), run.args.begin(), run.args.end());
  return a;
}

int container_timeout_s(double ready_timeouts_s, std::size_t services, double warmup_s,
                        double duration_s, int load_runs) {
  const double builds_s =
      static_cast<double>(kImageBuildTimeout.count()) * static_cast<double>(services);
  const double runs_s =
      (warmup_s > 0 ? warmup_s + kLoadRunGraceS : 0) + load_runs * (duration_s + kLoadRunGraceS);
  return static_cast<int>(std::ceil(builds_s + ready_timeouts_s + runs_s + 60));
}

bool remove_container(const ContainerEngine& engine, const std::string& name) {
  try {
    run_capture(engine.exe, engine_args(engine, {"stop", "-t", "3", name}), 15s);
    run_capture(engine.exe, engine_args(engine, {"rm", "-f", name}), 15s);
  } catch (const SpawnError&) {
    return false;
  }
  // docker's --rm removes a stopped container in the background, and `rm -f` meanwhile fails
  // ("removal already in progress"): it may be listed for a moment after.
  for (int tries = 0; tries < 20; ++tries) {
    auto left = list_containers(engine, name);
    if (std::find(left.begin(), left.end(), name) == left.end()) return true;
    std::this_thread::sleep_for(250ms);
  }
  return false;
}

std::vector<std::string> list_containers(const ContainerEngine& engine, const std::string& prefix) {
  std::vector<std::string> out;
  CaptureResult r = run_capture(
      engine.exe,
      engine_args(engine, {"ps", "-a", "--filter", "name=^" + prefix, "--format", "{{.Names}}"}),
      15s);
  std::istringstream in(r.output);
  std::string name;
  while (in >> name) {
    if (name.starts_with(prefix)) out.push_back(name);
  }
  return out;
}

std::vector<std::string> remove_orphan_containers(const ContainerEngine& engine) {
  std::vector<std::string> removed;
  try {
    for (const auto& name : list_containers(engine, "gb-")) {
      // gb-<pid>-<scenario>-<service>: the driver that started it.
      const long pid = std::strtol(name.c_str() + 3, nullptr, 10);
      if (pid <= 0 || pid == getpid()) continue;
      if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      if (remove_container(engine, name)) removed.push_back(name);
    }
  } catch (const SpawnError&) {
  }
  return removed;
}

std::map<std::string, pid_t> parse_container_pids(std::string_view output) {
  std::map<std::string, pid_t> out;
  std::istringstream lines{std::string(output)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name, pid_text, rest;
    // The engine's error lines ("Error: No such object: x") have more or other words.
    if (!(words >> name >> pid_text) || (words >> rest)) continue;
    if (name.starts_with('/')) name.erase(0, 1);
    long pid = 0;
    auto [end, ec] = std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid);
    if (ec == std::errc() && end == pid_text.data() + pid_text.size() && pid > 0)
      out[name] = static_cast<pid_t>(pid);
  }
  return out;
}

std::map<std::string, pid_t> container_pids(const ContainerEngine& engine,
                                            const std::vector<std::string>& names) {
  if (names.empty()) return {};
  std::vector<std::string> args =
      engine_args(engine, {"container", "inspect", "--format", "{{.Name}} {{.State.Pid}}"});
  args.insert(args.end(), names.begin(), names.end());
  try {
    // A name the engine does not know fails the call but not the others' lines.
    return parse_container_pids(run_capture(engine.exe, args, 10s).output);
  } catch (const SpawnError&) {
    return {};
  }
}

namespace {

// A decimal number of the engine's output, all of `digits` or an error naming `text`.
double engine_number(std::string_view digits, std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size())
    throw ContainerError("cannot read the number '" + std::string(digits) + "' in '" +
                         std::string(text) + "'");
  return value;
}

}  // namespace

double parse_go_duration_s(std::string_view text) {
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (start == i) break;
    double value = engine_number(text.substr(start, i - start), text);
    size_t unit_start = i;
    while (i < text.size() && !std::isdigit(static_cast<unsigned char>(text[i])) && text[i] != '.')
      ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    if (unit == "h")
      total += value * 3600;
    else if (unit == "m")
      total += value * 60;
    else if (unit == "s")
      total += value;
    else if (unit == "ms")
      total += value / 1e3;
    else if (unit == "us" || unit == "µs")
      total += value / 1e6;
    else if (unit == "ns")
      total += value / 1e9;
    else
      throw ContainerError("unknown duration unit in '" + std::string(text) + "'");
  }
  return total;
}

double parse_mem_mb(std::string_view text) {
  text = text.substr(0, text.find('/'));
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) throw ContainerError("cannot read memory '" + std::string(text) + "'");
  double value = engine_number(text.substr(0, digits), text);
  std::string_view unit = text.substr(digits);
  static const std::map<std::string_view, double> kUnits = {
      {"B", 1e-6}, {"kB", 1e-3},        {"KB", 1e-3},      {"MB", 1},
      {"GB", 1e3}, {"KiB", 1024 / 1e6}, {"MiB", 1.048576}, {"GiB", 1073.741824}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end())
    throw ContainerError("unknown memory unit in '" + std::string(text) + "'");
  return value * it->second;
}

std::map<std::string, ContainerStats> container_stats(const ContainerEngine& engine,
                                                      const std::vector<std::string>& names) {
  std::map<std::string, ContainerStats> out;
  if (names.empty()) return out;
  std::vector<std::string> args = engine_args(engine, {"stats", "--no-stream", "--format", "json"});
  args.insert(args.end(), names.begin(), names.end());
  CaptureResult r = run_capture(engine.exe, args, 10s);
  if (!r.succeeded()) return out;
  try {
    auto j = nlohmann::json::parse(r.output.substr(r.output.find('[')));
    for (const auto& c : j) {
      ContainerStats s;
      s.cpu_s = parse_go_duration_s(c.value("cpu_time", "0s"));
      s.mem_mb = parse_mem_mb(c.value("mem_usage", "0B"));
      out[c.value("name", "")] = s;
    }
  } catch (const std::exception&) {
    out.clear();  // an unreadable sample is skipped, not fatal
  }
  return out;
}

}  // namespace gatebench::macro
