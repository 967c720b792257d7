// ThreadPool::PhysicalCores: distinct (package, core) pairs among the CPUs this
// process may run on, so hyper-thread siblings and CPUs outside our affinity
// mask (containers, taskset) do not count.
#include <sched.h>

#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "pagoda/threading/thread_pool.h"

namespace pagoda {
namespace {

bool ReadInt(const std::string& path, int* value) {
  std::ifstream in(path);
  return static_cast<bool>(in >> *value);
}

}  // namespace

int ThreadPool::PhysicalCores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool have_mask = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
  std::set<std::pair<int, int>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (have_mask && !CPU_ISSET(cpu, &allowed)) continue;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    int package = 0;
    int core = 0;
    if (!ReadInt(dir + "physical_package_id", &package) || !ReadInt(dir + "core_id", &core)) continue;
    cores.emplace(package, core);
  }
  if (!cores.empty()) return static_cast<int>(cores.size());
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

}  // namespace pagoda
