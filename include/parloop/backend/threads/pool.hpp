// SPDX-License-Identifier: MIT
// The threads backend's workers: a pool that runs one job at a time on each of its threads, the
// calling thread as thread 0, and a barrier for the job's steps (the colours of a loop). Waiting
// threads spin briefly before they sleep (on the futex under std::atomic::wait), so that loops
// called back to back start without waiting for a wake-up, and an idle pool costs no CPU.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "parloop/core/function_ref.hpp"
#include "parloop/core/range.hpp"
#include "parloop/core/thread_count.hpp"

namespace parloop::detail {

// How long a waiting thread spins before it sleeps, by the clock: pause instructions differ
// widely in cost between processors. A thread woken from sleep (a futex, an inter-processor
// interrupt, in a virtual machine an exit to the hypervisor) starts tens to hundreds of
// microseconds late, and at a full machine some thread of a loop is often that late: a pool
// whose threads sleep that soon falls well behind OpenMP, one that spins for milliseconds (as
// libgomp does) keeps up (docs/performance.md, Airfoil on the CPU). Where the node has more
// threads than CPUs, a spinning thread holds the CPU that a working one needs: spin briefly
// then, as libgomp does. Under ThreadSanitizer each load of the spin costs far more: sleep
// sooner. PARLOOP_POOL_SPIN_US, at compile time, sets both.
#if defined(__SANITIZE_THREAD__)
#define PARLOOP_POOL_SPIN_US 2
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PARLOOP_POOL_SPIN_US 2
#endif
#endif
#ifdef PARLOOP_POOL_SPIN_US
inline constexpr std::chrono::microseconds spin_alone{PARLOOP_POOL_SPIN_US};
inline constexpr std::chrono::microseconds spin_shared{PARLOOP_POOL_SPIN_US};
#else
inline constexpr std::chrono::microseconds spin_alone{5000};
inline constexpr std::chrono::microseconds spin_shared{200};
#endif

// How long the pool's waiting threads spin: long while the node's ranks x threads fit its CPUs,
// briefly where they oversubscribe them.
inline std::chrono::microseconds spin_for(int threads) { return threads <= cpus_for_rank() ? spin_alone : spin_shared; }

// Waits until `a` no longer holds `old`: spins for `spin`, then sleeps counted in `sleepers`, so
// that the thread that changes it calls notify_all only when someone sleeps (see wake).
template <class T>
void await_change(const std::atomic<T>& a, T old, std::atomic<int>& sleepers, std::chrono::microseconds spin) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (a.load(std::memory_order_acquire) != old) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() - start > spin) break;
      // The thread this one waits for may be off its CPU (more threads than CPUs, or another
      // program's threads on them): a spin that never yields holds the CPU it needs until the
      // scheduler takes it back, at every step of a loop.
      std::this_thread::yield();
    }
  }
  // Dekker's handshake with wake: each side's store precedes its load (both sequentially
  // consistent), so either this thread sees the new value or the waker sees a sleeper.
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  while (a.load(std::memory_order_seq_cst) == old) a.wait(old, std::memory_order_seq_cst);
  sleepers.fetch_sub(1, std::memory_order_relaxed);
}

// After storing a new value into `a` (sequentially consistent): wakes the threads asleep on it.
template <class T>
void wake(std::atomic<T>& a, const std::atomic<int>& sleepers) {
  if (sleepers.load(std::memory_order_seq_cst) > 0) a.notify_all();
}

// The t-th of `count` near-equal contiguous parts of [first, first + n): how the threads backend
// shares a loop's elements (and a colour's blocks) among its threads, and where it first touches
// a dat's pages, so that each thread's part of a direct loop is in memory near it.
inline range part_of(index_t first, index_t n, int t, int count) {
  const auto at = [&](int i) { return static_cast<index_t>(first + static_cast<std::int64_t>(n) * i / count); };
  return {at(t), at(t + 1)};
}

// Below this many elements per thread a loop runs on fewer threads (the calling thread alone
// below twice this): waking a thread costs more than the elements would.
inline constexpr index_t least_per_thread = 128;

// The threads of `pool` a loop of n elements without colours or reductions runs on.
inline int threads_for(int pool_size, index_t n) {
  return static_cast<int>(std::min<index_t>(pool_size, std::max<index_t>(1, n / least_per_thread)));
}

class thread_pool {
 public:
  // `threads` in all, the caller's included; a waiting thread spins for `spin` before it sleeps;
  // `pin` binds worker i to the i-th CPU this process may run on (Linux; elsewhere it is
  // ignored). The calling thread is left where it is: threads a program starts later inherit its
  // binding, and a user's OpenMP team would all share that one CPU.
  thread_pool(int threads, bool pin, std::chrono::microseconds spin = spin_shared)
      : size_(std::clamp(threads, 1, max_threads)), pin_(pin), spin_(spin) {
#if defined(__linux__)
    if (pin_) {
      cpu_set_t allowed;
      CPU_ZERO(&allowed);
      if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
          if (CPU_ISSET(c, &allowed)) cpus_.push_back(c);
        }
      }
    }
#endif
    workers_.reserve(static_cast<std::size_t>(size_ - 1));
    for (int t = 1; t < size_; ++t) workers_.emplace_back([this, t] { work(t); });
  }
  ~thread_pool() {
    stopping_.store(true, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_seq_cst);
    generation_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  int size() const { return size_; }
  bool pinned() const { return pin_; }

  // Runs job(t) on thread t for every t in [0, count) (all the pool's by default), 0 being the
  // calling thread, and returns when those have finished; then rethrows the first exception a
  // thread recorded (fail) or let out of the job. The pool's other threads wake and go back to
  // waiting: a small loop on two threads does not wait for sixteen. One job at a time: the pool
  // belongs to its runtime's thread.
  void run(function_ref<void(int)> job, int count = 0) {
    failure_ = nullptr;
    failed_.store(false, std::memory_order_relaxed);
    active_ = count < 1 || count > size_ ? size_ : count;
    if (active_ == 1) {
      guarded(job, 0);
    } else {
      job_ = &job;
      pending_.store(active_ - 1, std::memory_order_relaxed);
      launches_ += 1;
      generation_.store(launches_ << thread_bits | static_cast<std::uint64_t>(active_), std::memory_order_seq_cst);
      wake(generation_, generation_sleepers_);
      guarded(job, 0);
      for (int left = pending_.load(std::memory_order_acquire); left != 0;
           left = pending_.load(std::memory_order_acquire)) {
        await_change(pending_, left, pending_sleepers_, spin_);
      }
      job_ = nullptr;
    }
    if (failure_) std::rethrow_exception(failure_);
  }

  // Inside a job, on every thread that runs it: returns once all have reached it. What each
  // thread wrote before it is seen by every thread after it.
  void barrier() {
    if (active_ == 1) return;
    const std::uint64_t phase = barrier_phase_.load(std::memory_order_acquire);
    if (barrier_arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == active_) {
      barrier_arrived_.store(0, std::memory_order_relaxed);
      barrier_phase_.fetch_add(1, std::memory_order_seq_cst);
      wake(barrier_phase_, barrier_sleepers_);
    } else {
      await_change(barrier_phase_, phase, barrier_sleepers_, spin_);
    }
  }

  // Records the first exception of a job whose threads must go on to its barriers; failed()
  // then tells the others to skip their remaining work. run rethrows it.
  void fail(std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(failure_mutex_);
    if (!failure_) failure_ = std::move(e);
    failed_.store(true, std::memory_order_relaxed);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  void guarded(function_ref<void(int)>& job, int t) {
    try {
      job(t);
    } catch (...) {
      fail(std::current_exception());
    }
  }

  void work(int t) {
    pin_to(t);
    std::uint64_t seen = 0;
    for (;;) {
      await_change(generation_, seen, generation_sleepers_, spin_);
      seen = generation_.load(std::memory_order_acquire);
      if (stopping_.load(std::memory_order_relaxed)) return;
      // A thread the launch does not need goes back to waiting at once. It reads how many the
      // launch needs from the generation it loaded, not from active_: the caller, waiting for
      // none but those, may be writing the next launch's already.
      if (t >= static_cast<int>(seen & thread_mask)) continue;
      guarded(*job_, t);
      if (pending_.fetch_sub(1, std::memory_order_seq_cst) == 1) wake(pending_, pending_sleepers_);
    }
  }

  void pin_to([[maybe_unused]] int t) {
#if defined(__linux__)
    if (!pin_ || cpus_.empty()) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus_[static_cast<std::size_t>(t) % cpus_.size()], &one);
    // A CPU that cannot be had leaves the thread where the system puts it: pinning is a hint.
    (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one);
#endif
  }

  const int size_;
  const bool pin_;
  const std::chrono::microseconds spin_;
  std::vector<int> cpus_;
  std::vector<std::thread> workers_;

  // The job and how many threads run it: written before the generation that publishes them.
  function_ref<void(int)>* job_ = nullptr;
  // A launch's generation: its number, shifted past the threads that run it. Read and written by
  // the caller; the workers read the generation only.
  static constexpr int thread_bits = 16;
  static constexpr std::uint64_t thread_mask = (std::uint64_t{1} << thread_bits) - 1;
  static_assert(max_threads <= static_cast<int>(thread_mask), "a launch's threads fit its generation's low bits");
  std::uint64_t launches_ = 0;
  int active_ = 1;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> generation_sleepers_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> pending_sleepers_{0};
  std::atomic<bool> stopping_{false};

  std::atomic<std::uint64_t> barrier_phase_{0};
  std::atomic<int> barrier_arrived_{0};
  std::atomic<int> barrier_sleepers_{0};

  std::mutex failure_mutex_;
  std::exception_ptr failure_;
  std::atomic<bool> failed_{false};
};

}  // namespace parloop::detail
