#include "sim/dispatch_round.h"

#include <algorithm>

namespace asyncsim {

std::vector<char> choose_round(const std::vector<RoundSm>& order, size_t sms, size_t side_from,
                               int64_t left, bool spread, bool by_tpc_id) {
  int64_t level = INT64_MAX;
  int64_t room = 0;  // SMs with room at the lowest level
  std::vector<const RoundSm*> by_id(sms, nullptr);
  for (const RoundSm& sm : order) {
    by_id[sm.id] = &sm;
    if (sm.room && sm.live <= level) {
      room = sm.live < level ? 1 : room + 1;
      level = sm.live;
    }
  }
  const auto at_level = [&](const RoundSm* sm) {
    return sm != nullptr && sm->room && (!spread || sm->live == level);
  };
  std::vector<char> chosen(sms, 0);
  int64_t n = 0;
  const auto choose = [&](size_t id) {
    chosen[id] = 1;
    ++n;
  };
  if (!spread || left >= room) {
    for (const RoundSm& sm : order) {
      if (at_level(&sm)) {
        choose(sm.id);
      }
    }
  } else if (by_tpc_id) {
    for (size_t id = side_from; id < sms && n < left; ++id) {
      if (at_level(by_id[id])) {
        choose(id);
      }
    }
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t tpc = 0; 2 * tpc < side_from && n < left; ++tpc) {
        for (size_t id = 2 * tpc; id < std::min(2 * tpc + 2, side_from) && n < left; ++id) {
          if (!chosen[id] && at_level(by_id[id])) {
            choose(id);
            if (pass == 0) {
              break;  // one SM of the TPC in the first pass
            }
          }
        }
      }
    }
  } else {
    std::vector<char> tpc_taken(sms / 2 + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      for (const RoundSm& sm : order) {
        if (n < left && !chosen[sm.id] && at_level(&sm) && (pass == 1 || !tpc_taken[sm.id / 2])) {
          choose(sm.id);
          tpc_taken[sm.id / 2] = 1;
        }
      }
    }
  }
  return chosen;
}

}  // namespace asyncsim
