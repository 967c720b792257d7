// Streamed responses, clients that go away, and clients that stop reading.
#include <atomic>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace pagoda::http::testing {
namespace {

TEST(HttpServerStreaming, ChunksArriveAsTheyAreWritten) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("POST", "/v1/completions", R"({"stream": true})")));
  ASSERT_TRUE(box.WaitForCount(1));
  std::shared_ptr<Responder> responder = box.at(0);
  responder->StartStream(200, "text/event-stream", {{"Cache-Control", "no-cache"}});
  responder->Write("data: one\n\n");
  // Chunk 2 is written only once the client holds chunk 1.
  ASSERT_TRUE(client.WaitFor("data: one\n\n"));
  EXPECT_EQ(client.received().find("data: two"), std::string::npos);
  responder->Write("data: two\n\n");
  responder->Write("data: [DONE]\n\n");
  responder->End();
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("content-type"), "text/event-stream");
  EXPECT_EQ(response->header("cache-control"), "no-cache");
  EXPECT_EQ(response->header("transfer-encoding"), "chunked");
  EXPECT_EQ(response->body, "data: one\n\ndata: two\n\ndata: [DONE]\n\n");
  EXPECT_FALSE(responder->client_gone());

  // The connection serves the next request, and the old Responder is inert.
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/next")));
  ASSERT_TRUE(box.WaitForCount(2));
  responder->Write("stale");
  responder->End();
  Response next;
  next.body = "next";
  box.at(1)->Send(next);
  response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body, "next");
}

TEST(HttpServerStreaming, Http10StreamsEndWithTheConnection) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("GET /s HTTP/1.0\r\n\r\n"));
  ASSERT_TRUE(box.WaitForCount(1));
  box.at(0)->StartStream(200, "text/plain");
  box.at(0)->Write("a");
  box.at(0)->Write("b");
  box.at(0)->End();
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header("transfer-encoding"), "");
  EXPECT_EQ(response->body, "ab");
}

TEST(HttpServerStreaming, AClientThatDisconnectsMidStreamFiresOnClientGone) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/stream")));
  ASSERT_TRUE(box.WaitForCount(1));
  std::shared_ptr<Responder> responder = box.at(0);
  std::atomic<int> gone{0};
  responder->OnClientGone([&] { ++gone; });
  responder->StartStream(200, "text/event-stream");
  responder->Write("data: 1\n\n");
  ASSERT_TRUE(client.WaitFor("data: 1\n\n"));
  client.Abort();
  EXPECT_TRUE(WaitUntil([&] { return gone.load() == 1; }));
  EXPECT_TRUE(responder->client_gone());
  // Later calls do nothing; a callback registered now runs at once.
  responder->Write("data: 2\n\n");
  responder->End();
  bool ran_now = false;
  responder->OnClientGone([&] { ran_now = true; });
  EXPECT_TRUE(ran_now);
  EXPECT_EQ(gone.load(), 1);
}

TEST(HttpServerStreaming, AClientThatLeavesBeforeAnyResponseFiresOnClientGone) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  std::atomic<bool> gone{false};
  {
    TestClient client(server->port());
    ASSERT_TRUE(client.Send(MakeRequest("POST", "/slow", "prompt")));
    ASSERT_TRUE(box.WaitForCount(1));
    box.at(0)->OnClientGone([&] { gone = true; });
  }  // closes politely (FIN): the server reads EOF
  EXPECT_TRUE(WaitUntil([&] { return gone.load(); }));
  Response late;
  box.at(0)->Send(late);  // nothing to send it to
}

TEST(HttpServerStreaming, AClientThatStopsReadingIsTreatedAsGone) {
  ResponderBox box;
  ServerConfig config;
  config.max_pending_write_bytes = 256 * 1024;
  auto server = StartTestServer(KeepResponders(box), config);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/firehose")));
  ASSERT_TRUE(box.WaitForCount(1));
  std::shared_ptr<Responder> responder = box.at(0);
  responder->StartStream(200, "application/octet-stream");
  // The socket buffers fill (a few MiB on loopback), then the queue grows
  // past the limit.
  const std::string chunk(64 * 1024, 'z');
  size_t written = 0;
  while (!responder->client_gone() && written < (size_t{512} << 20)) {
    responder->Write(chunk);
    written += chunk.size();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // lets the io thread keep up
  }
  EXPECT_TRUE(WaitUntil([&] { return responder->client_gone(); })) << written << " bytes written";
}

}  // namespace
}  // namespace pagoda::http::testing
