#include "macro/driver/measure/prepare.hpp"

#include <strings.h>

#include <filesystem>
#include <map>

#include "macro/common/stop_signal.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/results/wrk_output.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

void prepare_tls(const ScenarioPlan& plan, Progress& progress) {
  for (const auto& step : plan.prepare) {
    if (step.step != "tls-cert") continue;
    progress.phase("prepare tls-cert");
    // A fresh ECDSA P-256 certificate per run: nothing secret is checked in.
    CaptureResult r = run_capture(
        *Toolbox().find("openssl"),
        {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days",
         "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", step.params.at("key"), "-out", step.params.at("cert")},
        std::chrono::milliseconds(20000));
    if (r.interrupted) throw Interrupted{};
    if (r.timed_out || r.status != 0) {
      throw Outcome{Status::skipped, "prepare tls-cert failed: " + last_line(r.output)};
    }
  }
}

namespace {

// Where the service probed on `port` is reached from here: its host's address when --place put
// it on an ssh host.
std::string address_of(const ScenarioPlan& plan, int port) {
  for (const auto& service : plan.services)
    if (service.ready_port == port) return service.address;
  return "127.0.0.1";
}

}  // namespace

bool is_cookie_value(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  // cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E.
  for (const char c : value)
    if (c < 0x21 || c > 0x7e || c == '"' || c == ',' || c == ';' || c == '\\') return false;
  return true;
}

void prepare_cookies(const ScenarioPlan& plan, Progress& progress, LoadPlan& load) {
  Variables vars = plan.vars;
  bool any = false;
  for (const auto& step : plan.prepare) {
    if (step.step != "cookies") continue;
    any = true;
    progress.phase("prepare cookie " + step.cookie);
    std::map<std::string, std::string> jar;
    std::string trail;
    for (const auto& path : step.get) {
      if (common::stop_requested()) throw Interrupted{};
      std::vector<std::string> headers = step.headers;
      std::string cookie_header;
      for (const auto& [name, value] : jar) {
        cookie_header += (cookie_header.empty() ? "" : "; ") + name + "=" + value;
      }
      if (!cookie_header.empty()) headers.push_back("Cookie: " + cookie_header);
      auto reply = http_get(plan.ports.at(step.port), path, headers, std::chrono::seconds(5),
                            address_of(plan, plan.ports.at(step.port)));
      trail += " GET " + path + " -> " + (reply ? std::to_string(reply->status) : "no reply");
      if (!reply) break;
      for (const auto& [name, value] : reply->headers) {
        if (strcasecmp(name.c_str(), "set-cookie") != 0) continue;
        std::string pair = value.substr(0, value.find(';'));
        size_t eq = pair.find('=');
        if (eq == std::string::npos) continue;
        std::string cookie_name = pair.substr(0, eq);
        std::string cookie_value = pair.substr(eq + 1);
        if (cookie_value.empty()) {
          jar.erase(cookie_name);
        } else {
          jar[cookie_name] = cookie_value;
        }
      }
    }
    write_text((fs::path(plan.run_dir) / ("prepare-" + step.cookie + ".txt")).string(),
               trail.substr(1) + "\n");
    auto it = jar.find(step.cookie);
    if (it == jar.end()) {
      throw Outcome{Status::skipped, "prepare: no " + step.cookie + " cookie after" + trail};
    }
    // The value goes verbatim into the load's headers and into JSON request templates: a
    // quote, backslash or line break from the target would rewrite them.
    if (!is_cookie_value(it->second))
      throw Outcome{Status::failed, "prepare: the " + step.cookie +
                                        " cookie the target set is not an RFC 6265 cookie-value"};
    vars["cookie." + step.cookie] = it->second;
  }
  if (!any) return;
  try {
    load.headers.clear();
    for (const auto& h : load.header_templates) {
      load.headers.push_back(render_template(h, vars, "load.headers"));
    }
    if (!load.requests_template.empty()) {
      load.requests_content = render_template(load.requests_template, vars, "load.requests");
    }
  } catch (const TemplateError& e) {
    throw Outcome{Status::failed, e.what()};
  }
}

void write_service_inputs(const ScenarioPlan& plan) {
  for (const auto& service : plan.services) {
    for (const auto& dir : service.dirs) fs::create_directories(dir);
    for (const auto& [path, content] : service.configs) write_text(path, content);
  }
}

std::string wrk_script_path(const ScenarioPlan& plan) {
  return (fs::path(plan.run_dir) / "wrk-done.lua").string();
}

void write_load_inputs(const ScenarioPlan& plan, const LoadPlan& load) {
  if (!load.requests_path.empty()) write_text(load.requests_path, load.requests_content);
  if (load.tool == "wrk") write_text(wrk_script_path(plan), wrk_done_script());
}

}  // namespace gatebench::macro
