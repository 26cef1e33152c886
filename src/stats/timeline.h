// Timeline recording in Chrome-trace JSON (opens in Perfetto / chrome://tracing): one process
// per SM, one thread per resident warpgroup slot showing what it was doing (issuing, compute,
// waits), plus a TMA track (each transaction from admission to its last response) and a tensor
// track (each wgmma group from first issue to completion). Recording costs nothing when off.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/time.h"

namespace asyncsim {

class Timeline {
 public:
  Timeline(double sm_period_ps, size_t max_events) : m_period(sm_period_ps), m_max(max_events) {}

  void slice(uint32_t sm, uint32_t track, const std::string& name, Time begin, Time end);
  void tma(uint32_t sm, bool store, const std::string& what, Time begin, Time end);
  void tensor(uint32_t sm, Time begin, Time end);
  void name_track(uint32_t sm, uint32_t track, const std::string& name);
  // Adds a counter sample (e.g. DRAM bandwidth) on a chip-wide track.
  void counter(const std::string& name, Time at, double value);

  // Writes the trace; returns the number of events dropped beyond the cap.
  void write(const std::string& path) const;
  size_t dropped() const { return m_dropped; }
  size_t size() const { return m_events.size(); }

  static constexpr uint32_t kTmaTrack = 1000;
  static constexpr uint32_t kTensorTrack = 1001;

 private:
  struct Ev {
    Time begin;
    Time end;
    uint32_t sm;
    uint32_t track;
    uint32_t name;
  };
  uint32_t intern(const std::string& s);
  double period() const { return m_period; }

  double m_period;
  size_t m_max;
  size_t m_dropped = 0;
  std::vector<Ev> m_events;
  std::vector<std::string> m_names;
  std::map<std::string, uint32_t> m_name_ids;
  std::map<std::pair<uint32_t, uint32_t>, std::string> m_track_names;
  struct Sample {
    uint32_t name;
    Time at;
    double value;
  };
  std::vector<Sample> m_samples;
};

}  // namespace asyncsim
