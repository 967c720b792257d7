// Copy-on-write for the paged KV cache: when a sequence forked from another
// first writes into a block they share, the scheduler gives it a fresh block
// and asks for the shared one's contents to be copied there first.
#pragma once

#include <span>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/kv_blocks/kv_cache_manager.h"

namespace pagoda {

// Copies K and V of every copy's src block to its dst block, in every layer,
// in the order given (a later copy may read an earlier one's dst).
void CopyKvBlocks(std::span<const kernels::KvCacheLayer> layers, std::span<const BlockCopy> copies);

}  // namespace pagoda
