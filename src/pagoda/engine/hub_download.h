// Downloads a model id from the Hugging Face Hub into the standard cache
// layout (hf_cache.h), as huggingface_hub does, so that later runs (and
// other tools) find it there:
//   blobs/<etag>                         each file's bytes, by its ETag
//   snapshots/<commit>/<file> -> ../../blobs/<etag>
//   refs/<revision>                      the commit the revision named
// The files a model needs (*.json, *.safetensors, *.jinja, tokenizer.model)
// are fetched; a partial blob (blobs/<etag>.incomplete) is resumed with a
// Range request, after a broken connection within a run (up to 5 tries) or
// in a later run. Each blob is checked against its ETag (SHA-256 for LFS
// files, the git blob SHA-1 for others) before it is linked. $HF_ENDPOINT
// names the Hub (https://huggingface.co by default), $HF_TOKEN authorizes.
// Progress goes to stderr.
#pragma once

#include <string>

#include "pagoda/base/status.h"

namespace pagoda {

// The snapshot directory. UNAVAILABLE when the Hub cannot be reached.
StatusOr<std::string> DownloadModel(const std::string& id, const std::string& revision);

// $HF_ENDPOINT, or the public Hub.
std::string HfEndpoint();

}  // namespace pagoda
