// libmodsecurity3 running the OWASP Core Rule Set (Debian's modsecurity-crs): the WAF peer of
// rule evaluation, answering "what does a full CRS cost per request". One modsecurity
// Transaction per request (the library's model: its per-request allocation is the peer's cost),
// fed the connection, URI, request headers and body, with the intervention checked after the
// header phase and after the body phase. Needs libmodsecurity-dev at configure time and the CRS
// files at run time; missing_reason() says which one is absent.
#pragma once

#include <memory>
#include <string>

#include "micro/core/rules/request.hpp"

namespace gatebench::peers {

struct ModSecurityCrsConfig {
  std::string crs_setup = "/etc/modsecurity/crs/crs-setup.conf";
  std::string crs_rules_dir = "/usr/share/modsecurity-crs/rules";  // every *.conf is included
  int paranoia_level = 1;                                          // CRS paranoia level 1..4
};

struct ModSecurityVerdict {
  bool blocked = false;  // a disruptive intervention (CRS: anomaly score over the threshold)
  int status = 200;      // HTTP status the intervention asks for (403 for a CRS block)
  int phase = 0;         // 1: after the request headers, 2: after the body; 0 when not blocked
};

class ModSecurityCrs {
 public:
  // Why the peer cannot run with `config`: the library was missing at configure time or the CRS
  // files are absent. Empty when it can run (the rules may still fail to parse; see below).
  static std::string missing_reason(const ModSecurityCrsConfig& config = {});

  // Writes a main configuration (engine on, request body access, JSON body processor, the CRS
  // setup, the paranoia level, every rule file of crs_rules_dir) into a fresh temporary
  // directory, loads it and removes the directory. Throws std::invalid_argument naming the path
  // when a CRS file is missing or paranoia_level is outside 1..4, std::runtime_error with
  // modsecurity's parser message (file and line) when the rules do not load.
  explicit ModSecurityCrs(const ModSecurityCrsConfig& config = {});
  ~ModSecurityCrs();
  ModSecurityCrs(const ModSecurityCrs&) = delete;
  ModSecurityCrs& operator=(const ModSecurityCrs&) = delete;

  // Runs one request through a new Transaction (phases 1 and 2; no response, no logging phase).
  ModSecurityVerdict evaluate(const rules::RequestView& request);

  // The library's own identification ("ModSecurity v3.0.9 (Linux)").
  std::string version() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gatebench::peers
