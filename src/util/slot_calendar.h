// Capacity of a crossbar port over time, in fixed slots: one slot carries one sector (32 B) at
// the port's bandwidth. The port's responses are booked when their requests are processed, for
// data that becomes ready up to a DRAM round trip later and out of order, so most bookings land
// in the middle of what is booked already. A sorted list of busy spans (util/calendar.h) pays a
// search and an insertion for that; a bitmap of slots pays a word or two.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "util/fast_div.h"
#include "util/time.h"

namespace asyncsim {

// One host line (64 bytes) holds what a booking reads of the calendar itself; a streaming run
// books on two of the 228 ports of the H200 per request, and misses in the host's caches on them.
class alignas(64) SlotCalendar {
 public:
  explicit SlotCalendar(Time slot_ps = 1)
      : m_slot_div(static_cast<uint64_t>(slot_ps < 1 ? 1 : slot_ps)) {}

  // Books `slots` slots (the packet's sectors) from the slot holding `ready` on, filling
  // the free slots earlier bookings left (a packet ready earlier than one booked before it goes
  // first; packets of one response may interleave with others', as flits do). Returns the
  // wait: how much later the last slot ends than `ready` plus the packet's slots (0 on an idle
  // port; a packet that has to wait starts at a slot boundary). `now` is the
  // simulated time of the booking, which never decreases; `ready` >= now.
  Time book(Time now, Time ready, int slots) {
    if (slots <= 0) {
      return 0;
    }
    // Times are never negative; the divisions by the slot length are multiply-shifts.
    // floor(floor(now / slot) / 64) = floor(now / (64 slot)).
    const auto base = static_cast<int64_t>(m_slot_div.div(static_cast<uint64_t>(now)) >> 6);
    if (base > m_base) {
      advance(base);
    }
    auto first = static_cast<int64_t>(m_slot_div.div(static_cast<uint64_t>(ready)));
    if (first < m_base * 64) {
      first = m_base * 64;
    }
    // Most bookings take their slots in a row within one word of the ring: from `first` on
    // when nothing is booked from there (appending), else from the first free slot when the
    // slots after it are free too. The rest take the general path.
    // (Slot numbers are never negative: word and bit by shift and mask, not signed division.)
    const int64_t w = static_cast<int64_t>(static_cast<uint64_t>(first) >> 6);
    const auto bit = static_cast<int>(static_cast<uint64_t>(first) & 63);
    if (slots < 64 && w < m_base + static_cast<int64_t>(size())) {
      uint64_t& word = ring()[static_cast<size_t>(w) & m_mask];
      const bool append = first > m_last;
      // A word past the last booking is free whatever the ring holds there (see m_words): it
      // is not read, which a streaming run would miss in the host's caches on.
      const bool fresh = w > last_word();
      const uint64_t taken = fresh ? 0 : word;
      const int lo = append ? bit : std::countr_zero(~taken & (~uint64_t{0} << bit));
      const uint64_t run = ((uint64_t{1} << slots) - 1) << (lo & 63);
      if (lo + slots <= 64 && (taken & run) == 0) {
        if (fresh) {
          clear_words(last_word() + 1, w);
        }
        word = taken | run;
        if (word == ~uint64_t{0}) {
          mark_full(w);
        }
        const int64_t start = w * 64 + lo;
        m_last = std::max(m_last, start + slots - 1);
        const Time wait = start * slot_ps() - ready;
        return append || wait < 0 ? 0 : wait;
      }
    }
    return book_slow(first, ready, slots);
  }

 private:
  // The general booking: packets spanning words, full words, a ring that has to grow.
  [[gnu::noinline]] Time book_slow(int64_t first, Time ready, int slots) {
    if (first > m_last) {
      // Everything from `first` on is free: set the bits without reading words that lie
      // beyond the last booking.
      clear_words(last_word() + 1, std::min(first / 64, m_base + static_cast<int64_t>(size())));
      for (int64_t s = first; s < first + slots;) {
        const int64_t w = s / 64;
        const int64_t n = std::min<int64_t>(first + slots - s, 64 - s % 64);
        const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << (s % 64);
        take(w, mask, w > last_word());
        s += n;
        m_last = s - 1;  // at once: a ring that grows keeps only the words up to m_last
      }
      return 0;
    }
    int64_t w = static_cast<int64_t>(static_cast<uint64_t>(first) >> 6);
    uint64_t free = ~word(w) & (~uint64_t{0} << (static_cast<uint64_t>(first) & 63));
    int64_t last = first;
    for (int need = slots; need > 0;) {
      if (free == 0) {
        // A congested port has whole words taken: skip them with the summary of full words.
        // (None past the last booking is full, so this stops at the word after it at most.)
        w = next_open(w + 1);
        free = w > last_word() ? ~uint64_t{0} : ~word(w);
        continue;
      }
      // The lowest `need` free slots of this word, taken at once, a run of free slots at a time.
      uint64_t mask = 0;
      while (need > 0 && free != 0) {
        const int lo = std::countr_zero(free);
        const int len = std::countr_zero(~(free >> lo));  // 64 when every slot is free
        const int n = std::min(len, need);
        const uint64_t run = (n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1) << lo;
        mask |= run;
        free &= ~run;
        need -= n;
      }
      take(w, mask, w > last_word());
      last = w * 64 + (63 - std::countl_zero(mask));
      m_last = std::max(m_last, last);  // at once, as above
    }
    m_last = std::max(m_last, last);
    const Time wait = (last + 1 - slots) * slot_ps() - ready;
    return wait > 0 ? wait : 0;
  }

  // m_words holds the ring of words (a power of two, at least 64) and after it its summary, one
  // bit per word that is full. Ring words are exact from m_base to the word of m_last; those
  // after it are free, whatever they hold (advance() leaves words it forgets as they are, and
  // a booking past the last one replaces or zeroes the words it reaches: the writes land next
  // to the booking's own rather than a ring's length behind it). Summary bits are exact
  // throughout (none is set past the last booking).
  static constexpr size_t kFirstWords = 64;  // 4096 slots
  size_t size() const { return size_t{m_mask} + 1; }
  uint64_t* ring() { return m_words.data(); }
  uint64_t* summary() { return m_words.data() + size(); }
  // The word holding slots [64 w, 64 w + 64), growing the ring when w lies beyond it.
  uint64_t& word(int64_t w) {
    while (w >= m_base + static_cast<int64_t>(size())) {
      grow();
    }
    return ring()[static_cast<size_t>(w) & m_mask];
  }
  int64_t last_word() const { return m_last >> 6; }  // -1 before the first booking
  // Sets `mask` in word w (replacing it when `fresh`: it lies past the last booking).
  void take(int64_t w, uint64_t mask, bool fresh) {
    uint64_t& x = word(w);
    x = fresh ? mask : (x | mask);
    if (x == ~uint64_t{0}) {
      mark_full(w);
    }
  }
  // Zeroes the ring's words [from, to) (to <= the ring's end): words past the last booking
  // that a booking further on leaves behind it.
  void clear_words(int64_t from, int64_t to) {
    for (int64_t v = std::max(from, m_base); v < to; ++v) {
      ring()[static_cast<size_t>(v) & m_mask] = 0;
    }
  }
  void mark_full(int64_t w) {
    const size_t pos = static_cast<size_t>(w) & m_mask;
    summary()[pos >> 6] |= uint64_t{1} << (pos & 63);
    ++m_full;
  }
  // The first word at or after v (>= m_base) that is not full. Words past the ring are empty.
  int64_t next_open(int64_t v) {
    for (;;) {
      const int64_t room = m_base + static_cast<int64_t>(size()) - v;
      if (room <= 0) {
        return v;
      }
      const size_t pos = static_cast<size_t>(v) & m_mask;
      const auto bit = static_cast<int64_t>(pos & 63);
      uint64_t open = ~summary()[pos >> 6] & (~uint64_t{0} << bit);
      if (room < 64 - bit) {
        open |= ~uint64_t{0} << (bit + room);  // positions past the ring's end alias older words
      }
      if (open != 0) {
        return v + std::countr_zero(open) - bit;
      }
      v += 64 - bit;
    }
  }
  // Forgets the words before `base`: no later booking reaches them.
  void advance(int64_t base) {
    if (base <= m_base) {
      return;
    }
    // The words themselves stay (see m_words); their summary bits are cleared, looked at only
    // while some word is full (rarely, on a streaming run).
    if (m_full > 0) {
      uint64_t* sum = summary();
      const size_t mask = m_mask;
      const int64_t end = std::min(base, m_base + static_cast<int64_t>(mask + 1));
      for (int64_t w = m_base; w < end && m_full > 0; ++w) {
        const size_t pos = static_cast<size_t>(w) & mask;
        const uint64_t bit = uint64_t{1} << (pos & 63);
        if ((sum[pos >> 6] & bit) != 0) {
          sum[pos >> 6] &= ~bit;
          --m_full;
        }
      }
    }
    m_base = base;
  }
  void grow() {
    const size_t old = size();
    const size_t big = old * 2;
    std::vector<uint64_t> bigger(big + big / 64, 0);
    const uint64_t* r = ring();
    // The exact words only: the bigger ring holds zeros past the last booking.
    const int64_t end = std::min(m_base + static_cast<int64_t>(old), last_word() + 1);
    m_full = 0;
    for (int64_t w = m_base; w < end; ++w) {
      const uint64_t x = r[static_cast<size_t>(w) & m_mask];
      const size_t pos = static_cast<size_t>(w) & (big - 1);
      bigger[pos] = x;
      if (x == ~uint64_t{0}) {
        bigger[big + (pos >> 6)] |= uint64_t{1} << (pos & 63);
        ++m_full;
      }
    }
    m_words.swap(bigger);
    m_mask = static_cast<uint32_t>(big - 1);
  }

  Time slot_ps() const { return static_cast<Time>(m_slot_div.divisor()); }
  // The fields a booking reads first, in the calendar's first 64 bytes (the ring's pointer too).
  FastDiv m_slot_div;                 // by the slot length
  int64_t m_base = 0;                 // first word still tracked
  int64_t m_last = -1;                // the latest slot booked: all after it are free
  uint32_t m_mask = kFirstWords - 1;  // ring size - 1
  uint32_t m_full = 0;                // summary bits set
  std::vector<uint64_t> m_words = std::vector<uint64_t>(kFirstWords + kFirstWords / 64, 0);
};

}  // namespace asyncsim
