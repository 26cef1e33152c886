// Capacity of one resource over time: the warp schedulers' issue slots or a pipe of an SM, a
// crossbar port.
#pragma once

#include <algorithm>
#include <vector>

#include "util/time.h"

namespace asyncsim {

// Work is divisible: a booking of `amount` busy time from `from` fills the idle gaps the
// bookings before it left, as a warp scheduler fills the cycles one warp leaves idle (waiting on
// a 8-cycle MUFU) with another warp's instructions. With `fill` off it is a busy-until
// reservation: the work starts after every earlier booking ends.
class Calendar {
 public:
  // Books `amount` from `from` (>= now) on; returns when the last of it is done (`from` if
  // amount <= 0). `now` is the simulated time of the booking, which never decreases.
  Time book(Time now, Time from, Time amount, bool fill) {
    if (amount <= 0) {
      return from;
    }
    if (!fill) {
      const Time start = std::max(from, m_busy.empty() ? from : m_busy.back().end);
      insert_last({start, start + amount});
      return start + amount;
    }
    // Drop what ends by `now`: bookings arrive in simulated-time order, so no later booking can
    // start before it.
    if (!m_busy.empty() && m_busy.front().end <= now) {
      auto first = std::upper_bound(m_busy.begin(), m_busy.end(), now,
                                    [](Time t, const Span& s) { return t < s.end; });
      m_busy.erase(m_busy.begin(), first);
    }
    // Common case: the work starts after everything booked.
    if (m_busy.empty() || from >= m_busy.back().end) {
      append({from, from + amount});
      return from + amount;
    }
    // Fill the gaps from the first span that ends after `from` (ends are sorted too).
    auto it = std::upper_bound(m_busy.begin(), m_busy.end(), from,
                               [](Time t, const Span& s) { return t < s.end; });
    std::vector<Span>& added = m_scratch;  // reused: no allocation per booking
    added.clear();
    Time cursor = from;
    Time left = amount;
    for (; it != m_busy.end() && left > 0; ++it) {
      if (it->begin > cursor) {
        const Time take = std::min(left, it->begin - cursor);
        added.push_back({cursor, cursor + take});
        left -= take;
        cursor += take;
      }
      cursor = std::max(cursor, it->end);
    }
    if (left > 0) {
      added.push_back({cursor, cursor + left});
    }
    const Time done = added.back().end;
    for (const Span& a : added) {
      merge(a);
    }
    return done;
  }

 private:
  struct Span {
    Time begin;
    Time end;
  };
  // Adds a span that starts at or after the last one's end.
  void append(Span a) {
    if (!m_busy.empty() && m_busy.back().end >= a.begin) {
      m_busy.back().end = std::max(m_busy.back().end, a.end);
    } else {
      m_busy.push_back(a);
    }
  }
  // A reservation never needs what lies behind its last span.
  void insert_last(Span a) {
    append(a);
    if (m_busy.size() > 1) {
      m_busy.erase(m_busy.begin(), m_busy.end() - 1);
    }
  }
  void merge(Span a) {
    auto it = std::lower_bound(m_busy.begin(), m_busy.end(), a.begin,
                               [](const Span& s, Time t) { return s.begin < t; });
    it = m_busy.insert(it, a);
    // Coalesce with touching neighbours.
    if (it != m_busy.begin() && std::prev(it)->end >= it->begin) {
      std::prev(it)->end = std::max(std::prev(it)->end, it->end);
      it = std::prev(m_busy.erase(it));
    }
    while (std::next(it) != m_busy.end() && std::next(it)->begin <= it->end) {
      it->end = std::max(it->end, std::next(it)->end);
      m_busy.erase(std::next(it));
    }
  }
  std::vector<Span> m_busy;  // sorted, disjoint
  std::vector<Span> m_scratch;
};

}  // namespace asyncsim
