#pragma once
// The preparation steps of a scenario run (docs/scenarios.md): a fresh TLS certificate before the
// services start, cookie flows through the running gateway after, and the rendered inputs.
#include <string_view>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/system/progress.hpp"

namespace gatebench::macro {

// Every `tls-cert` step: a fresh self-signed ECDSA P-256 certificate. Throws Outcome skipped.
void prepare_tls(const ScenarioPlan& plan, Progress& progress);

// Every `cookies` step: GETs its paths in turn keeping the cookies each reply sets, as a browser
// would; the named cookie becomes ${cookie.<name>} and the load's headers and request mix are
// rendered again with it. Throws Outcome (skipped: no such cookie; failed: a template error).
void prepare_cookies(const ScenarioPlan& plan, Progress& progress, LoadPlan& load);
// RFC 6265's cookie-value: what prepare_cookies accepts from a target before pasting it into
// headers and request templates.
bool is_cookie_value(std::string_view value);

// Rendered configs and directories of the services; the load's request mix and wrk's script.
void write_service_inputs(const ScenarioPlan& plan);
void write_load_inputs(const ScenarioPlan& plan, const LoadPlan& load);

// wrk's done() script, an artifact of the run directory.
std::string wrk_script_path(const ScenarioPlan& plan);

}  // namespace gatebench::macro
