// Which SMs take a CTA in one round of the block scheduler after its unit fill (sm.dispatch_*,
// Run::dispatch_initial). Kept apart from the run so the rule can be read and tested alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace asyncsim {

// An SM as a round sees it, in the scheduler's order (side unit first, then GPC by GPC).
struct RoundSm {
  size_t id;
  bool room;     // another CTA fits
  int64_t live;  // CTAs it holds
};

// The SMs (by id, `sms` in all) that take one CTA each this round, `left` CTAs being left.
// Without `spread` (sm.spread_partial_round) every SM with room. With it, the SMs with room
// that hold the fewest CTAs; when `left` is fewer than those, a partial round: with
// `by_tpc_id`, the side unit's (ids from `side_from` on), then one SM of each TPC (SMs 2t,
// 2t + 1) by TPC id, then their other SMs; else one SM of each TPC in `order`, then the rest.
std::vector<char> choose_round(const std::vector<RoundSm>& order, size_t sms, size_t side_from,
                               int64_t left, bool spread, bool by_tpc_id);

}  // namespace asyncsim
