#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "common/config.h"

// How the closed loop learns where kube-scheduler bound each pod: one watch of bound pods
// (fieldSelector spec.nodeName!=) in every namespace, through the collector's own KubeClient, from
// resourceVersion 0 so that a (re)started watch first replays every bound pod (the caller skips
// those it knows) and no binding is lost across a restart. A watch that ends is resumed from the
// last resourceVersion seen; an expired one (410) starts again from 0.
// Thread-safe: one thread watches; take() from another.
namespace netscore::sim {

class PodBindingWatch {
 public:
  struct Binding {
    std::string key;  // "namespace/name"
    std::string node;
  };

  // curl_global_init must have run.
  explicit PodBindingWatch(KubeConfig kube);
  PodBindingWatch(const PodBindingWatch&) = delete;
  PodBindingWatch& operator=(const PodBindingWatch&) = delete;
  ~PodBindingWatch();

  // The bindings seen since the last call, waiting until there is one or `until` passes.
  std::vector<Binding> take(std::chrono::steady_clock::time_point until);
  // Watches that ended in a failure (not a timeout), and the latest failure.
  std::uint64_t failures() const;
  std::string last_failure() const;

 private:
  void run(const std::stop_token& stop);
  // True to go on watching.
  bool on_line(std::string_view line, std::string& resource_version);

  KubeConfig kube_;
  mutable std::mutex mutex_;
  std::condition_variable_any arrived_;
  std::vector<Binding> bindings_;
  std::uint64_t failures_ = 0;
  std::string last_failure_;
  std::jthread thread_;  // last: stopped and joined before the members it uses go away
};

}  // namespace netscore::sim
