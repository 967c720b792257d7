// Server::Stop: graceful for responses that finish in time, abrupt (with
// OnClientGone) for the rest, and Responders that outlive the Server.
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"

namespace pagoda::http::testing {
namespace {

TEST(HttpServerShutdown, StopClosesUnfinishedStreamsAndFiresOnClientGone) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  constexpr size_t kStreams = 3;
  std::vector<std::unique_ptr<TestClient>> clients;
  std::atomic<int> gone{0};
  for (size_t i = 0; i < kStreams; ++i) {
    clients.push_back(std::make_unique<TestClient>(server->port()));
    ASSERT_TRUE(clients.back()->Send(MakeRequest("GET", "/stream")));
    ASSERT_TRUE(box.WaitForCount(i + 1));
    box.at(i)->OnClientGone([&] { ++gone; });
    box.at(i)->StartStream(200, "text/event-stream");
    box.at(i)->Write("data: first\n\n");
    ASSERT_TRUE(clients.back()->WaitFor("data: first\n\n"));
  }
  TestClient idle(server->port());
  ASSERT_TRUE(idle.Send(MakeRequest("GET", "/quick")));
  ASSERT_TRUE(box.WaitForCount(kStreams + 1));
  box.at(kStreams)->Send(Response{});
  ASSERT_TRUE(idle.ReadResponse().has_value());

  server->Stop(std::chrono::milliseconds(200));
  EXPECT_EQ(gone.load(), static_cast<int>(kStreams));  // before Stop returned
  for (auto& client : clients) EXPECT_TRUE(client->WaitForClose());
  EXPECT_TRUE(idle.WaitForClose());

  server.reset();
  for (const auto& responder : box.responders()) {  // all inert now
    responder->Write("data: late\n\n");
    responder->End();
    responder->Send(Response{});
  }
  for (size_t i = 0; i < kStreams; ++i) EXPECT_TRUE(box.at(i)->client_gone());
  EXPECT_FALSE(box.at(kStreams)->client_gone());
}

TEST(HttpServerShutdown, StopLetsResponsesFinishWithinTheGrace) {
  ResponderBox box;
  auto server = StartTestServer(KeepResponders(box));
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("POST", "/v1/completions", "{}")));
  ASSERT_TRUE(box.WaitForCount(1));
  std::atomic<bool> gone{false};
  box.at(0)->OnClientGone([&] { gone = true; });
  std::thread engine([responder = box.at(0)] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    responder->StartStream(200, "text/event-stream");
    responder->Write("data: done\n\n");
    responder->End();
  });
  const auto start = std::chrono::steady_clock::now();
  server->Stop(std::chrono::seconds(30));
  // It returned because the response finished, long before the grace ran out.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  engine.join();
  EXPECT_FALSE(gone.load());
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->body, "data: done\n\n");
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServerShutdown, StopIsIdempotent) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  server->Stop(std::chrono::milliseconds(0));
  server->Stop(std::chrono::milliseconds(0));
  server.reset();  // and the destructor stops nothing more
}

}  // namespace
}  // namespace pagoda::http::testing
