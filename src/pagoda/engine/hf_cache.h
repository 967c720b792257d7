// Model ids ("org/name") in the standard Hugging Face cache, as
// huggingface_hub lays it out and vLLM finds models:
//   $HF_HUB_CACHE (default $HF_HOME/hub, default ~/.cache/huggingface/hub)
//     models--org--name/refs/<branch or tag>   the commit it points to
//     models--org--name/snapshots/<commit>/    the files of that commit
#pragma once

#include <string>

#include "pagoda/base/status.h"

namespace pagoda {

// The hub cache directory the environment names.
std::string HfHubCacheDir();
// Its directory for model `id`: <cache>/models--org--name.
std::string HfRepoCacheDir(const std::string& id);

// Whether `text` has the shape of a model id: "org/name", each part made of
// letters, digits, '-', '_' and '.', not starting with '.' (so no local path
// such as "./x" or "/x/y" is taken for one).
bool LooksLikeModelId(const std::string& text);

// The snapshot directory of `id` at `revision` (a branch or tag under refs/,
// or a commit; empty: "main"). NotFound names the directory looked in.
StatusOr<std::string> ResolveCachedModel(const std::string& id, const std::string& revision);

}  // namespace pagoda
