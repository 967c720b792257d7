// What all connections of one server share.
#pragma once

#include <memory>

#include "pagoda/server/http/connection_registry.h"
#include "pagoda/server/http/connection_responder.h"
#include "pagoda/server/http/http_server.h"

namespace pagoda::http::internal {

struct ServerState {
  ServerConfig config;
  Handler handler;
  std::shared_ptr<Lifeline> lifeline = std::make_shared<Lifeline>();
  ConnectionRegistry registry;
};

}  // namespace pagoda::http::internal
