// Hex digests of a file, streamed: SHA-256 (the ETag of the Hub's LFS files)
// and git's blob SHA-1 (the ETag of its other files).
#pragma once

#include <string>

#include "pagoda/base/status.h"

namespace pagoda {

StatusOr<std::string> FileSha256Hex(const std::string& path);
// SHA-1 of "blob <size>\0" followed by the file's bytes, as git names blobs.
StatusOr<std::string> FileGitBlobSha1Hex(const std::string& path);

}  // namespace pagoda
