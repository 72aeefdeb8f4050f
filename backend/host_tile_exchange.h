// Internal: tile ops that move elements between a block's threads (conversions, permutes,
// reductions and scans across threads, dots), lowered for a host block in phases.
//
// On a GPU these ops trade registers through shared memory between barriers, or with warp
// shuffles. A host block in phases (host_phases.h) runs them as a phase of their own instead:
// one loop over the threads writes each thread's registers of the operands to the block's
// exchange memory as dense row-major tiles, the op runs once for the block on those tiles
// (loops LLVM vectorizes: a reduction with vector accumulators, a dot as rows of FMAs), and
// one loop over the threads reads each thread's result registers back. The results are those
// of the GPU's lowering up to the order in which floating-point sums are combined.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "lowering.h"

namespace cutlet::backend {

/// Whether tile op `inst` moves elements between the threads of a block on the host: a
/// tile.convert_layout between placements, a tile.permute or tile.reshape, a reduction or
/// scan along an axis spread over several threads, a tile.dot.
bool host_tile_exchange(const ir::Function& fn, const ir::Instruction& inst);

/// The exchange memory (bytes per block, a multiple of 64) the largest exchange of c.fn needs.
std::uint64_t host_exchange_bytes(const LoweringContext& c);

/// Exchange `inst` (host_tile_exchange) for a block in phases, in three parts the phase
/// lowering emits where it likes: each thread's gather (in the loop over the threads that
/// makes the operands, or one of its own), the block's compute once, then each thread's
/// scatter (in the next loop over the threads).
class HostExchange {
 public:
  /// `memory`: the block's exchange memory (host_exchange_bytes, 64-byte aligned); the dense
  /// tiles' addresses are emitted at the insertion point, which must dominate the parts.
  HostExchange(LoweringContext& c, const ir::Instruction& inst, llvm::Value* memory);
  HostExchange(const HostExchange&) = delete;
  HostExchange& operator=(const HostExchange&) = delete;

  /// Emits a thread's gather: its registers of the operands (value(v) gives them) written
  /// to the dense tiles. Runs in the thread's state (thread_coords).
  void gather(const std::function<llvm::Value*(ir::ValueId v)>& value);
  /// Emits the block's compute, after every running thread's gather; returns the results
  /// that are the same for every thread (scalar reductions) as (value, x).
  std::vector<std::pair<ir::ValueId, llvm::Value*>> compute();
  /// Whether a thread has results to scatter.
  bool scatters() const;
  /// Emits a thread's scatter: keep(v, x) for each result v of its registers x.
  void scatter(const std::function<void(ir::ValueId v, llvm::Value* x)>& keep);

  /// A dense row-major tile in the exchange memory; booleans are kept as bytes.
  struct Dense {
    llvm::Value* base;
    llvm::Type* elem;    ///< the values' type
    llvm::Type* stored;  ///< the type in memory
  };

 private:
  LoweringContext& c_;
  const ir::Instruction& inst_;
  std::vector<Dense> tiles_;  ///< in the order dense_tiles gives them
};

}  // namespace cutlet::backend
