// Requests and responses over keep-alive connections, HTTP/1.0, HEAD,
// Expect: 100-continue, chunked request bodies, throwing handlers.
#include <atomic>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace pagoda::http::testing {
namespace {

TEST(HttpServer, EchoesGetAndPost) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/hello?x=1", "", "X-Test: yes\r\n")));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("content-type"), "text/plain");
  EXPECT_EQ(response->body, fmt::format("GET /hello?x=1 path=/hello x-test=yes remote=127.0.0.1:{} body=",
                                        client.local_port()));

  ASSERT_TRUE(client.Send(MakeRequest("POST", "/v1/completions", R"({"prompt": "hi"})")));
  response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_NE(response->body.find(R"(body={"prompt": "hi"})"), std::string::npos) << response->body;
}

TEST(HttpServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(client.Send(MakeRequest("POST", "/n", std::to_string(i))));
    auto response = client.ReadResponse();
    ASSERT_TRUE(response.has_value()) << i;
    EXPECT_EQ(response->header("connection"), "");  // HTTP/1.1 keeps the connection by default
    EXPECT_NE(response->body.find(fmt::format("remote=127.0.0.1:{} body={}", client.local_port(), i)),
              std::string::npos)
        << response->body;
  }
}

TEST(HttpServer, AnswersPipelinedRequestsInOrder) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("POST", "/a", "first") + MakeRequest("POST", "/b", "second") +
                          MakeRequest("GET", "/c")));
  for (const char* expected : {"POST /a", "POST /b", "GET /c"}) {
    auto response = client.ReadResponse();
    ASSERT_TRUE(response.has_value()) << expected;
    EXPECT_TRUE(response->body.starts_with(expected)) << response->body;
  }
}

TEST(HttpServer, Http10ClosesAfterTheResponseUnlessAskedToKeepAlive) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  {
    TestClient client(server->port());
    ASSERT_TRUE(client.Send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    auto response = client.ReadResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->header("connection"), "keep-alive");
    ASSERT_TRUE(client.Send("GET /old HTTP/1.0\r\n\r\n"));
    response = client.ReadResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("connection"), "close");
    EXPECT_TRUE(client.WaitForClose());
  }
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/", "", "Connection: close\r\n")));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header("connection"), "close");
  EXPECT_TRUE(client.WaitForClose());
}

TEST(HttpServer, HeadGetsTheHeadWithoutTheBody) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("HEAD", "/h")));
  auto response = client.ReadResponse(/*head_request=*/true);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_NE(response->header("content-length"), "0");
  EXPECT_EQ(response->body, "");
  // Had a body been sent, this would read it as a response.
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/after")));
  response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_TRUE(response->body.starts_with("GET /after")) << response->body;
}

TEST(HttpServer, SendsContinueToClientsThatExpectIt) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("POST /c HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  auto interim = client.ReadResponse();
  ASSERT_TRUE(interim.has_value());
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(client.Send("hello"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_TRUE(response->body.ends_with("body=hello")) << response->body;
}

TEST(HttpServer, ReadsChunkedRequestBodies) {
  auto server = StartTestServer(EchoHandler);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send("POST /c HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_TRUE(response->body.ends_with("body=abcdefg")) << response->body;
}

TEST(HttpServer, AThrowingHandlerGets500AndTheConnectionLivesOn) {
  auto server = StartTestServer([](Request request, std::shared_ptr<Responder> responder) {
    if (request.path == "/throw") throw std::runtime_error("boom");
    EchoHandler(std::move(request), std::move(responder));
  });
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/throw")));
  auto response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->body, "error 500: internal server error");
  ASSERT_TRUE(client.Send(MakeRequest("GET", "/fine")));
  response = client.ReadResponse();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
}

TEST(HttpServer, AHandlerMayRespondLaterFromAnotherThread) {
  std::vector<std::thread> workers;
  std::mutex workers_mu;
  auto server = StartTestServer([&](Request request, std::shared_ptr<Responder> responder) {
    std::lock_guard lock(workers_mu);
    workers.emplace_back([request = std::move(request), responder] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Response response;
      response.body = "late " + request.path;
      responder->Send(std::move(response));
    });
  });
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (int i = 0; i < 2; ++i) {
    const std::string path = fmt::format("/{}", i);
    ASSERT_TRUE(client.Send(MakeRequest("GET", path)));
    auto response = client.ReadResponse();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->body, "late " + path);
  }
  server.reset();
  for (std::thread& worker : workers) worker.join();
}

TEST(HttpServer, StartFailsClearlyWhenThePortIsTaken) {
  auto first = StartTestServer(EchoHandler);
  ASSERT_NE(first, nullptr);
  ServerConfig config;
  config.port = first->port();
  auto second = Server::Start(config, EchoHandler);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(fmt::format("cannot listen on 127.0.0.1:{}", first->port())),
            std::string::npos)
      << second.status().ToString();
}

}  // namespace
}  // namespace pagoda::http::testing
