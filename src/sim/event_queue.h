// The one time-ordered queue of the simulation. Ties break by insertion order, so the schedule
// is deterministic. Events are small PODs dispatched by kind with a switch (no virtual calls).
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "util/time.h"

namespace asyncsim {

enum class EventKind : uint8_t {
  kSmIssue,      // target=SM: try to issue an instruction
  kWgWake,       // target=SM, payload=warpgroup slot: a timed sleep ends
  kTmaGenerate,  // target=SM: the TMA request generator continues
  kTmaDone,      // target=SM, payload=transaction slot: all responses are back
  kLsuGenerate,  // target=SM: the load/store unit's request generator continues
  kLsuDone,      // target=SM, payload=transaction slot: an LD_GLOBAL / ST_GLOBAL is complete
  kCtaRelease,   // target=SM, payload=CTA slot: resources of an exited CTA are free
  kDispatch,     // target=unused: the block scheduler places CTAs
};

struct Event {
  Time time;
  uint64_t seq;
  uint32_t target;
  uint32_t payload;
  EventKind kind;
};

class EventQueue {
 public:
  EventQueue() { m_storage.reserve(4096); }
  void push(Time time, EventKind kind, uint32_t target, uint32_t payload = 0) {
    m_heap.push(Event{time, m_seq++, target, payload, kind});
  }
  bool empty() const { return m_heap.empty(); }
  const Event& top() const { return m_heap.top(); }
  Event pop() {
    Event e = m_heap.top();
    m_heap.pop();
    return e;
  }
  uint64_t pushed() const { return m_seq; }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::vector<Event> m_storage;
  std::priority_queue<Event, std::vector<Event>, Later> m_heap{Later{}, std::move(m_storage)};
  uint64_t m_seq = 0;
};

}  // namespace asyncsim
