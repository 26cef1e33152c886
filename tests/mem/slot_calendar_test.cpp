// The crossbar ports' calendar of slots (src/util/slot_calendar.h), with exact waits: slots of
// 10 ps, so a packet of n slots holds the port 10 n ps.
#include "util/slot_calendar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace asyncsim {
namespace {

TEST(SlotCalendar, IdlePortAddsNoWaitAlignedOrNot) {
  SlotCalendar port(10);
  EXPECT_EQ(port.book(0, 100, 1), 0);
  EXPECT_EQ(port.book(0, 205, 2), 0);  // slots 20 and 21 are free
}

TEST(SlotCalendar, PacketsReadyTogetherSerialize) {
  SlotCalendar port(10);
  EXPECT_EQ(port.book(0, 100, 1), 0);   // slot 10
  EXPECT_EQ(port.book(0, 100, 1), 10);  // slot 11: ends at 120 = 100 + 10 + 10
  EXPECT_EQ(port.book(0, 100, 2), 20);  // slots 12, 13: ends at 140 = 100 + 20 + 20
  // Ready mid-slot 13, which is taken: slot 14 ends at 150 = 135 + 10 + 5.
  EXPECT_EQ(port.book(0, 135, 1), 5);
}

TEST(SlotCalendar, EarlierDataTakesTheFreeSlotsBeforeALaterBooking) {
  SlotCalendar port(10);
  EXPECT_EQ(port.book(0, 1000, 4), 0);  // a DRAM fill's response, booked first: slots 100-103
  EXPECT_EQ(port.book(0, 200, 4), 0);   // a hit ready long before it is not delayed by it
  // A packet ready at 990 takes slot 99, then the first free slot after the fill's, 104.
  EXPECT_EQ(port.book(0, 990, 2), 1050 - 990 - 20);
}

TEST(SlotCalendar, BookingsFarAheadGrowTheRingAndKeepWhatIsBooked) {
  SlotCalendar port(10);
  EXPECT_EQ(port.book(0, 500, 1), 0);          // slot 50
  EXPECT_EQ(port.book(0, 10'000'000, 1), 0);   // slot 1'000'000, far beyond the first ring
  EXPECT_EQ(port.book(0, 500, 1), 10);         // slot 50 is still taken after the growth
  EXPECT_EQ(port.book(0, 10'000'000, 1), 10);  // and so is slot 1'000'000
}

TEST(SlotCalendar, TimePassingFreesNothingStillAhead) {
  SlotCalendar port(10);
  EXPECT_EQ(port.book(0, 50'000, 3), 0);  // slots 5000-5002
  // At now = 49'000 the words before slot 4900 are forgotten; the booking ahead is kept.
  EXPECT_EQ(port.book(49'000, 50'000, 1), 30);
  // Long after, the same slots are free again (the ring reuses its words).
  EXPECT_EQ(port.book(10'000'000, 10'050'000, 1), 0);
}

// A congested port: whole words are taken, and a booking skips them (through the summary of
// full words) to the first free slot, across the ring's growth and its reuse of words.
TEST(SlotCalendar, CongestedPortSkipsFullWordsToTheFirstFreeSlot) {
  SlotCalendar port(10);
  EXPECT_EQ(port.book(0, 0, 200), 0);                        // slots 0-199
  EXPECT_EQ(port.book(0, 5, 1), 200 * 10 - 5);               // slot 200: ends at 2010
  EXPECT_EQ(port.book(0, 0, 5000), (5200 + 1 - 5000) * 10);  // 201-5200, past the first ring
  EXPECT_EQ(port.book(0, 0, 1), 5201 * 10);                  // slot 5201
  EXPECT_EQ(port.book(0, 30'000, 1), 5202 * 10 - 30'000);    // ready in the run: slot 5202
  // Much later every word is reused, empty.
  EXPECT_EQ(port.book(1'000'000, 1'000'000, 1), 0);
  EXPECT_EQ(port.book(1'000'000, 1'000'000, 1), 10);
}

// xorshift64: the random bookings below, reproducible run to run.
struct XorShift64 {
  uint64_t x;
  uint64_t operator()() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
};

// The reference calendar: a set of taken slots, searched slot by slot. Books the first `slots`
// free slots from the one holding `ready` and returns the wait of a packet ready then.
Time reference_wait(std::set<int64_t>& taken, Time slot, Time ready, int slots) {
  int64_t s = ready / slot;
  int64_t last = s;
  for (int n = 0; n < slots; ++s) {
    if (taken.insert(s).second) {
      last = s;
      ++n;
    }
  }
  return std::max<Time>(0, (last + 1 - slots) * slot - ready);
}

// Random bookings against a plain reference: a set of taken slots, searched slot by slot. Times
// move forward, packets are ready up to ~40000 slots ahead (past the inline ring, so it grows),
// and some ports are congested; every wait must match.
TEST(SlotCalendar, MatchesAReferenceOnRandomBookings) {
  constexpr Time kSlot = 7;
  SlotCalendar port(kSlot);
  std::set<int64_t> taken;
  XorShift64 next{0x9e3779b97f4a7c15ULL};
  Time now = 0;
  for (int i = 0; i < 20000; ++i) {
    now += static_cast<Time>(next() % 40);
    const Time ahead = next() % 4 == 0 ? static_cast<Time>(next() % (40000 * kSlot))
                                       : static_cast<Time>(next() % (300 * kSlot));
    const Time ready = now + ahead;
    const int slots = 1 + static_cast<int>(next() % 4);
    // Slots before `now`'s word are forgotten by the calendar but can never be reached again:
    // ready >= now.
    const Time want = reference_wait(taken, kSlot, ready, slots);
    ASSERT_EQ(port.book(now, ready, slots), want) << "booking " << i;
  }
}

// The same with time moving fast (the ring's words are reused many times over, so words the
// calendar forgot are met again past its last booking), idle gaps, packets of up to 80 slots
// (spanning words) and bursts that fill whole words.
TEST(SlotCalendar, MatchesAReferenceWhileTheRingWraps) {
  constexpr Time kSlot = 5;
  SlotCalendar port(kSlot);
  std::set<int64_t> taken;
  XorShift64 next{0x2545F4914F6CDD1DULL};
  Time now = 0;
  for (int i = 0; i < 40000; ++i) {
    const uint64_t r = next() % 100;
    now += r < 2 ? static_cast<Time>(next() % (3000 * kSlot)) : static_cast<Time>(next() % 400);
    const Time ahead = next() % 8 == 0 ? static_cast<Time>(next() % (900 * kSlot))
                                       : static_cast<Time>(next() % (120 * kSlot));
    const Time ready = now + ahead;
    const int slots =
        next() % 16 == 0 ? 1 + static_cast<int>(next() % 80) : 1 + static_cast<int>(next() % 4);
    const Time want = reference_wait(taken, kSlot, ready, slots);
    ASSERT_EQ(port.book(now, ready, slots), want) << "booking " << i;
    // Slots before now can never be reached again: keep the reference small.
    taken.erase(taken.begin(), taken.lower_bound(now / kSlot - 64));
  }
}

}  // namespace
}  // namespace asyncsim
