// Hundreds of streaming clients at once, on two io threads, with no thread
// per connection on either side.
#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace pagoda::http::testing {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// One asynchronous client: connects, sends its request, reads until the
// last chunk.
struct StreamClient : std::enable_shared_from_this<StreamClient> {
  StreamClient(asio::io_context& io, std::atomic<int>& finished) : socket(io), finished(finished) {}

  void Start(const tcp::endpoint& server, int id) {
    request = MakeRequest("POST", fmt::format("/stream/{}", id), R"({"stream": true})");
    socket.async_connect(server, [self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return self->Fail(ec);
      asio::async_write(self->socket, asio::buffer(self->request),
                        [self](const boost::system::error_code& ec, size_t) {
                          if (ec) return self->Fail(ec);
                          self->Read();
                        });
    });
  }

  void Read() {
    socket.async_read_some(asio::buffer(chunk), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                             size_t n) {
      if (ec) return self->Fail(ec);
      self->received.append(self->chunk.data(), n);
      if (self->received.ends_with("\r\n0\r\n\r\n")) {
        ++self->finished;
        return;
      }
      self->Read();
    });
  }

  void Fail(const boost::system::error_code& ec) { error = ec.message(); }

  tcp::socket socket;
  std::atomic<int>& finished;
  std::string request;
  std::array<char, 4096> chunk;
  std::string received;
  std::string error;
};

TEST(HttpServerConcurrency, Holds512StreamingConnectionsAtOnce) {
  constexpr int kClients = 512;
  constexpr int kChunks = 3;
  ResponderBox box;
  ServerConfig config;
  config.io_threads = 2;
  auto server = StartTestServer([&](Request request, std::shared_ptr<Responder> responder) {
    responder->StartStream(200, "text/event-stream");
    box.Put(std::move(request), std::move(responder));
  }, config);
  ASSERT_NE(server, nullptr);

  asio::io_context client_io;
  std::atomic<int> finished{0};
  std::vector<std::shared_ptr<StreamClient>> clients;
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), server->port());
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_shared<StreamClient>(client_io, finished));
    clients.back()->Start(endpoint, i);
  }
  std::thread client_thread([&] { client_io.run(); });

  // Every stream is open before any of them gets a chunk.
  const bool all_arrived = box.WaitForCount(kClients, std::chrono::seconds(20));
  EXPECT_TRUE(all_arrived);
  const std::vector<std::shared_ptr<Responder>> responders = box.responders();
  for (int k = 0; k < kChunks; ++k) {
    for (const auto& responder : responders) responder->Write(fmt::format("data: {}\n\n", k));
  }
  for (const auto& responder : responders) responder->End();
  EXPECT_TRUE(WaitUntil([&] { return finished.load() == kClients; }, std::chrono::seconds(20)))
      << finished.load() << " of " << kClients << " finished";
  client_io.stop();
  client_thread.join();

  int well_formed = 0;
  for (const auto& client : clients) {
    EXPECT_EQ(client->error, "");
    const bool ok = client->received.starts_with("HTTP/1.1 200 OK\r\n") &&
                    client->received.find("data: 0\n\n") != std::string::npos &&
                    client->received.find("data: 2\n\n") != std::string::npos;
    well_formed += ok ? 1 : 0;
  }
  EXPECT_EQ(well_formed, kClients);
  for (const auto& responder : responders) EXPECT_FALSE(responder->client_gone());
}

}  // namespace
}  // namespace pagoda::http::testing
