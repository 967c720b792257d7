// Clients that half-close (shutdown(SHUT_WR)) after their requests: they
// still get every response, while a client that really went away is still
// noticed. And RFC 9112's Host rule.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "test_util.h"

namespace pagoda::http::testing {
namespace {

TEST(HttpServerHalfClose, AClientThatHalfClosesStillGetsItsPendingResponse) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("POST", "/slow", "prompt")));
  ASSERT_TRUE(box.WaitForCount(1));
  client.FinishSending();
  std::atomic<bool> gone{false};
  box.at(0)->OnClientGone([&] { gone = true; });
  // Long enough for the server to read the EOF and probe a few times.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(gone.load());
  Response late;
  late.body = "done";
  box.at(0)->Send(late);
  auto response = client.ReadFinalResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "done");
  EXPECT_TRUE(client.WaitForClose());
  EXPECT_FALSE(gone.load());
}

TEST(HttpServerHalfClose, AStreamToAHalfClosedClientRunsToItsEnd) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/stream")));
  ASSERT_TRUE(box.WaitForCount(1));
  std::shared_ptr<Responder> responder = box.at(0);
  responder->StartStream(200, "text/event-stream", {}, ": ping\n\n");
  responder->Write("data: 1\n\n");
  client.FinishSending();
  // Long enough for a few probes.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  responder->Write("data: 2\n\n");
  responder->End();
  auto response = client.ReadFinalResponse();
  ASSERT_TRUE(response.has_value());
  // The probes are the stream's keep-alive bytes, between the writes.
  std::string pings = response->body;
  ASSERT_TRUE(pings.starts_with("data: 1\n\n") && pings.ends_with("data: 2\n\n")) << pings;
  pings = pings.substr(9, pings.size() - 18);
  EXPECT_GE(pings.size(), 2 * 8u) << pings;
  for (size_t i = 0; i < pings.size(); i += 8) EXPECT_EQ(pings.substr(i, 8), ": ping\n\n") << pings;
  EXPECT_FALSE(responder->client_gone());
}

TEST(HttpServerHalfClose, AQuietStreamWhoseClientClosedIsNoticed) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  std::atomic<bool> gone{false};
  {
    TestClient client(server->port());
    ASSERT_TRUE(client.Send(MakeRequest("GET", "/queued")));
    ASSERT_TRUE(box.WaitForCount(1));
    box.at(0)->StartStream(200, "text/event-stream", {}, ": ping\n\n");
    ASSERT_TRUE(client.WaitFor("\r\n\r\n"));  // the head
    box.at(0)->OnClientGone([&] { gone = true; });
  }  // close() while the stream writes nothing, as one waiting in a queue
  EXPECT_TRUE(WaitUntil([&] { return gone.load(); }));
}

TEST(HttpServerHalfClose, PipelinedRequestsBeforeTheHalfCloseAreAllAnswered) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("POST", "/a", "first") + MakeRequest("GET", "/b")));
  client.FinishSending();
  for (const char* expected : {"POST /a", "GET /b"}) {
    auto response = client.ReadFinalResponse();
    ASSERT_TRUE(response.has_value()) << expected;
    EXPECT_TRUE(response->body.starts_with(expected)) << response->body;
  }
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServerHalfClose, AClientThatClosedIsStillNoticedWhileItsResponseIsPending) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  std::atomic<bool> gone{false};
  {
    TestClient client(server->port());
    ASSERT_TRUE(client.Send(MakeRequest("POST", "/slow", "prompt")));
    ASSERT_TRUE(box.WaitForCount(1));
    box.at(0)->OnClientGone([&] { gone = true; });
  }  // close(): the same FIN as a half-close, but nobody reads any more
  EXPECT_TRUE(WaitUntil([&] { return gone.load(); }));
}

TEST(HttpServerHost, AnHttp11RequestWithoutHostIs400) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("GET /x HTTP/1.1\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
  EXPECT_EQ(response->body, "error 400: an HTTP/1.1 request must carry exactly one Host header");
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServerHost, TwoHostHeadersAre400) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 400);
}

TEST(HttpServerHost, Http10NeedsNoHost) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("GET /x HTTP/1.0\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
}

}  // namespace
}  // namespace pagoda::http::testing
