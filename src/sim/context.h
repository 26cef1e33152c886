// What every simulated component may reach: the config, the program, the event queue, the
// memory system and the optional timeline. Passed by reference instead of six collaborators.
#pragma once

#include "config/gpu_config.h"
#include "mem/memory_system.h"
#include "program/ir.h"
#include "sim/event_queue.h"
#include "sim/simulator.h"
#include "util/time.h"

namespace asyncsim {

class Timeline;

struct SimContext {
  const GpuConfig& config;
  const program::Kernel& kernel;
  EventQueue& queue;
  MemorySystem& memory;
  ClockDomain sm_clock;
  Timeline* timeline = nullptr;                   // null unless --timeline
  std::vector<IssueMark>* issue_trace = nullptr;  // RunOptions::issue_trace
  bool trace_every_role = false;                  // RunOptions::trace_every_role
  bool trace_every_cta = false;                   // RunOptions::trace_every_cta
};

}  // namespace asyncsim
