#include "pagoda/server/job_registry.h"

#include <vector>

#include "pagoda/server/generation_job.h"

namespace pagoda::server {

bool JobRegistry::Add(const std::shared_ptr<GenerationJob>& job) {
  std::lock_guard lock(mu_);
  if (closed_) return false;
  jobs_.emplace(job.get(), job);
  return true;
}

void JobRegistry::Remove(const GenerationJob* job) {
  std::lock_guard lock(mu_);
  jobs_.erase(job);
}

size_t JobRegistry::size() const {
  std::lock_guard lock(mu_);
  return jobs_.size();
}

void JobRegistry::ShutdownAll() {
  std::vector<std::shared_ptr<GenerationJob>> jobs;
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    for (const auto& [key, weak] : jobs_) {
      if (std::shared_ptr<GenerationJob> job = weak.lock()) jobs.push_back(std::move(job));
    }
  }
  // Outside the lock: a job removes itself as it ends.
  for (const std::shared_ptr<GenerationJob>& job : jobs) job->Shutdown();
}

}  // namespace pagoda::server
