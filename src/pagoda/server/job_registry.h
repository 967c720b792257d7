// The generations in flight, so that shutdown can wait for them and then
// end the ones still running.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace pagoda::server {

class GenerationJob;

class JobRegistry {
 public:
  // Registers a job until it finishes (it removes itself). False once
  // ShutdownAll began: the caller must end the job itself.
  bool Add(const std::shared_ptr<GenerationJob>& job);
  void Remove(const GenerationJob* job);
  size_t size() const;
  // Refuses new jobs from now on and shuts down every registered one.
  void ShutdownAll();

 private:
  mutable std::mutex mu_;
  bool closed_ = false;
  std::unordered_map<const GenerationJob*, std::weak_ptr<GenerationJob>> jobs_;
};

}  // namespace pagoda::server
