// The members every gateway end-to-end fixture has: a temporary directory for the config, the
// test's upstream, the gateway process and its port; each test's gateway must stop with exit 0.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/macro/gateway/gateway_testkit.hpp"

namespace gwtest {

class GatewayFixture : public ::testing::Test {
 protected:
  // One hosts[] entry: `names` (JSON strings), proxied to the test's upstream or `upstream_port`.
  std::string host(const std::string& names, const std::string& features = "",
                   int upstream_port = -1) const {
    return R"({"names": [)" + names + R"(], "upstream": "127.0.0.1:)" +
           std::to_string(upstream_port < 0 ? upstream_.port() : upstream_port) + "\"" + features +
           "}";
  }
  void TearDown() override {
    if (gateway_) {
      EXPECT_EQ(gateway_->stop(), 0) << gateway_->output();
    }
  }

  TempDir dir_;
  Upstream upstream_;
  std::unique_ptr<Process> gateway_;
  int port_ = 0;
};

}  // namespace gwtest
