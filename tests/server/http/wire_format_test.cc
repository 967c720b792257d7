// The bytes of response heads and chunks.
#include "pagoda/server/http/wire_format.h"

#include <gtest/gtest.h>

namespace pagoda::http::internal {
namespace {

TEST(HttpWireFormat, HeadWithContentLengthAndExtraHeaders) {
  const Headers headers = {{"X-Request-Id", "abc"}, {"content-length", "99"}, {"X-Evil", "a\r\nSet-Cookie: x"}};
  ResponseHead head;
  head.status = 404;
  head.content_type = "application/json";
  head.headers = &headers;
  head.content_length = 12;
  head.connection = "close";
  const std::string text = FormatHead(head);
  EXPECT_TRUE(text.starts_with("HTTP/1.1 404 Not Found\r\nDate: ")) << text;
  EXPECT_TRUE(text.ends_with("\r\nContent-Type: application/json\r\nContent-Length: 12\r\nConnection: close\r\n"
                             "X-Request-Id: abc\r\n\r\n"))
      << text;
}

TEST(HttpWireFormat, ChunkedHeadAndChunks) {
  ResponseHead head;
  head.status = 299;
  head.content_type = "text/event-stream";
  head.framing = Framing::kChunked;
  const std::string text = FormatHead(head);
  EXPECT_TRUE(text.starts_with("HTTP/1.1 299 Unknown\r\n")) << text;
  EXPECT_TRUE(text.ends_with("\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")) << text;
  EXPECT_EQ(Chunk("data: hi\n\n"), "a\r\ndata: hi\n\n\r\n");
  EXPECT_EQ(Chunk(std::string(300, 'x')).substr(0, 5), "12c\r\n");
}

TEST(HttpWireFormat, StatusesWithoutBodies) {
  EXPECT_TRUE(StatusAllowsBody(200));
  EXPECT_TRUE(StatusAllowsBody(413));
  EXPECT_FALSE(StatusAllowsBody(101));
  EXPECT_FALSE(StatusAllowsBody(204));
  EXPECT_FALSE(StatusAllowsBody(304));
}

}  // namespace
}  // namespace pagoda::http::internal
