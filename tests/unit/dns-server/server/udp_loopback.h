// Test helper: a UdpServer on 127.0.0.1 (a kernel-chosen port, a small receive
// buffer) answering from `context`, started, and asked one A question so the
// test knows it serves.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dns_client.h"
#include "server/query_context.h"
#include "server/udp_server.h"

namespace ax::dns::testing {

inline std::unique_ptr<UdpServer> StartLoopbackUdp(const QueryContext& context,
                                                   int max_payload = 1232) {
  auto server = std::make_unique<UdpServer>(
      UdpOptions{.listen = {runtime::Endpoint{*ParseIp("127.0.0.1"), 0}},
                 .rcvbuf = 1 << 16,
                 .max_payload = max_payload},
      context);
  std::string error;
  EXPECT_TRUE(server->Start(&error)) << error;
  EXPECT_TRUE(UdpExchange(server->bound().at(0),
                          MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 1)));
  return server;
}

}  // namespace ax::dns::testing
