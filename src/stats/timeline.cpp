#include "stats/timeline.h"

#include <cstdio>
#include <fstream>

#include "util/error.h"

namespace asyncsim {

uint32_t Timeline::intern(const std::string& s) {
  auto it = m_name_ids.find(s);
  if (it != m_name_ids.end()) {
    return it->second;
  }
  const auto id = static_cast<uint32_t>(m_names.size());
  m_names.push_back(s);
  m_name_ids.emplace(s, id);
  return id;
}

void Timeline::slice(uint32_t sm, uint32_t track, const std::string& name, Time begin, Time end) {
  if (end <= begin) {
    return;
  }
  if (m_events.size() >= m_max) {
    ++m_dropped;
    return;
  }
  m_events.push_back(Ev{begin, end, sm, track, intern(name)});
}

void Timeline::tma(uint32_t sm, bool store, const std::string& what, Time begin, Time end) {
  slice(sm, kTmaTrack, (store ? "TMA store " : "TMA load ") + what, begin, end);
}

void Timeline::tensor(uint32_t sm, Time begin, Time end) {
  slice(sm, kTensorTrack, "wgmma group", begin, end);
}

void Timeline::name_track(uint32_t sm, uint32_t track, const std::string& name) {
  m_track_names.emplace(std::make_pair(sm, track), name);
}

void Timeline::counter(const std::string& name, Time at, double value) {
  m_samples.push_back(Sample{intern(name), at, value});
}

static std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

void Timeline::write(const std::string& path) const {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    throw_input_error("--timeline " + path, "cannot open the file for writing");
  }
  // Timestamps are in SM cycles, written as microseconds so Perfetto's axis reads in cycles.
  std::fprintf(f,
               "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time_unit\":\"1 us = 1 SM cycle\"},"
               "\"traceEvents\":[\n");
  bool first = true;
  auto sep = [&]() {
    if (!first) {
      std::fputs(",\n", f);
    }
    first = false;
  };
  std::map<uint32_t, bool> sms;
  for (const auto& [key, name] : m_track_names) {
    sep();
    std::fprintf(
        f,
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"%s\"}}",
        key.first, key.second, escape(name).c_str());
    sms[key.first] = true;
  }
  for (const auto& e : m_events) {
    sms[e.sm] = true;
  }
  for (const auto& [sm, unused] : sms) {
    sep();
    std::fprintf(
        f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"args\":{\"name\":\"SM %u\"}}", sm,
        sm);
    sep();
    std::fprintf(
        f,
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"TMA\"}}",
        sm, kTmaTrack);
    sep();
    std::fprintf(f,
                 "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":"
                 "\"tensor core\"}}",
                 sm, kTensorTrack);
  }
  for (const auto& e : m_events) {
    sep();
    std::fprintf(f, "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}",
                 escape(m_names[e.name]).c_str(), e.sm, e.track,
                 static_cast<double>(e.begin) / period(),
                 static_cast<double>(e.end - e.begin) / period());
  }
  for (const auto& s : m_samples) {
    sep();
    std::fprintf(
        f, "{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%u,\"ts\":%.3f,\"args\":{\"value\":%.12g}}",
        escape(m_names[s.name]).c_str(), 9999u, static_cast<double>(s.at) / period(), s.value);
  }
  std::fputs("\n]}\n", f);
  std::fclose(f);
}

}  // namespace asyncsim
