#include "pagoda/server/request_workers.h"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

namespace pagoda::server {

struct RequestWorkers::Impl {
  explicit Impl(int threads) : pool(static_cast<size_t>(threads)) {}
  boost::asio::thread_pool pool;
};

RequestWorkers::RequestWorkers(int threads) : impl_(std::make_unique<Impl>(threads)) {}

RequestWorkers::~RequestWorkers() { Join(); }

void RequestWorkers::Post(std::function<void()> task) { boost::asio::post(impl_->pool, std::move(task)); }

void RequestWorkers::Join() { impl_->pool.join(); }

}  // namespace pagoda::server
