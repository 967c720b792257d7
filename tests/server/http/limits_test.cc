// What the server answers itself: oversized, malformed and slow requests,
// and idle keep-alive connections.
#include <string>

#include <gtest/gtest.h>

#include "test_util.h"

namespace pagoda::http::testing {
namespace {

TEST(HttpServerLimits, OversizedBodyGets413AndTheServerStaysHealthy) {
  ServerConfig config;
  config.max_body_bytes = 1024;
  auto server = StartTestServer(EchoHandler, config);
  ASSERT_NE(server, nullptr);
  {
    TestClient client(server->port());
    // The whole body is sent, as a client that does not wait for 100 does;
    // the server drains it so that the 413 is not lost to a reset.
    ASSERT_TRUE(client.Send(MakeRequest("POST", "/big", std::string(256 * 1024, 'x'))));
    auto response = client.ReadResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->status, 413);
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_EQ(response->body, "error 413: the request body is larger than 1024 bytes");
    EXPECT_TRUE(client.WaitForClose());
  }
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("POST", "/small", std::string(1024, 'y'))));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
}

TEST(HttpServerLimits, OversizedHeadersGet431) {
  ServerConfig config;
  config.max_header_bytes = 1024;
  auto server = StartTestServer(EchoHandler, config);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/", "", "X-Big: " + std::string(4096, 'h') + "\r\n")));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 431);
  EXPECT_EQ(response->header("connection"), "close");
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServerLimits, GarbageGets400) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("this is not HTTP at all\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
  EXPECT_TRUE(response->body.starts_with("error 400: malformed HTTP request")) << response->body;
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServerLimits, ARequestThatStallsGets408) {
  ServerConfig config;
  config.read_timeout = std::chrono::seconds(1);
  auto server = StartTestServer(EchoHandler, config);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("POST /slow HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nabc"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 408);
  EXPECT_EQ(response->header("connection"), "close");
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServerLimits, IdleKeepAliveConnectionsAreClosedQuietly) {
  ServerConfig config;
  config.idle_timeout = std::chrono::seconds(1);
  auto server = StartTestServer(EchoHandler, config);
  ASSERT_NE(server, nullptr);
  TestClient silent(server->port());
  TestClient served(server->port());
  ASSERT_TRUE(served.Send(MakeRequest("GET", "/")));
  ASSERT_TRUE(served.ReadResponse().has_value());
  EXPECT_TRUE(silent.WaitForClose());
  EXPECT_EQ(silent.received(), "");
  EXPECT_TRUE(served.WaitForClose());
  EXPECT_EQ(served.received(), "");
}

}  // namespace
}  // namespace pagoda::http::testing
