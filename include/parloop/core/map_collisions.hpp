// SPDX-License-Identifier: MIT
// What the checks of RW and WRITE through a map ask of its values: whether two rows that a loop
// runs reach one target (through a slot, or through any), and whether one row names a target
// twice. Each answer is computed once per map, slot and range (or subset) and kept, at a cost
// of the loop's own size where the range is small against the target set.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "parloop/config.hpp"

namespace parloop::detail {

// Two elements that meet at a target (first == second: one row names it twice).
struct collision {
  index_t first, second, target;
};

// A map's rows as the checks see them: `arity` targets per row (of a layered map, the targets'
// columns, and then a column's own slots meeting in one column of targets do not race: it runs
// its layers in order in one work-item), each below `target_count`.
struct target_rows {
  std::span<const index_t> targets;
  int arity;
  index_t rows;
  index_t target_count;
  bool layered;
};

// The elements a loop runs: [start, end), or over a subset positions [start, end) in its
// `elements`, named by the subset's id (subset_state::id, never reused; 0: no subset).
struct loop_rows {
  index_t start, end;
  std::span<const index_t> elements = {};
  std::uint64_t subset = 0;

  index_t element(index_t p) const { return elements.empty() ? p : elements[static_cast<std::size_t>(p)]; }
};

class collision_checks {
 public:
  // The slot that stands for every slot of a row.
  static constexpr int whole_map = -1;

  explicit collision_checks(int arity) : whole_set_(static_cast<std::size_t>(arity) + 2) {}

  // Two elements of `run` that reach one target through `slot` (any slot: whole_map), or
  // nothing when every target is distinct. The whole set's answer is kept first: a map whose
  // targets are all distinct is never looked at again.
  std::optional<collision> first_collision(const target_rows& m, int slot, const loop_rows& run) {
    return answer(m, slot, run, [&](const loop_rows& r) { return collision_in(m, slot, r); });
  }
  // Whether two elements of the whole set meet at a target through `slot`.
  bool targets_collide(const target_rows& m, int slot) { return first_collision(m, slot, {0, m.rows}).has_value(); }
  // An element of `run` whose row names one target twice: its slots alias on the host and are
  // copies on a device.
  std::optional<collision> repeat_in_row(const target_rows& m, const loop_rows& run) {
    return answer(m, repeats, run, [&](const loop_rows& r) { return repeat_in_rows(m, r); });
  }

  // The rows or the targets were renumbered: a range's answer may name other elements. The whole
  // set's stays: a renumbering moves rows and targets, not which of them meet.
  void forget_ranges() {
    const std::lock_guard lock(mutex_);
    kept_.clear();
  }

 private:
  // The answers kept per range: at most this many, the least recently used going first.
  static constexpr std::size_t max_kept = 32;
  // Beside the slots and whole_map, the key under which repeat_in_row's answers are kept.
  static constexpr int repeats = -2;
  static constexpr signed char not_known = 0, some_collide = 1, all_distinct = 2;
  struct kept {
    int slot;
    index_t start, end;
    std::uint64_t subset;
    std::uint64_t last_use;
    std::optional<collision> found;
  };

  template <class Compute>
  std::optional<collision> answer(const target_rows& m, int slot, const loop_rows& run, const Compute& compute) {
    std::atomic<signed char>& whole = whole_set_[static_cast<std::size_t>(slot - repeats)];
    const signed char k = whole.load(std::memory_order_relaxed);
    if (k == all_distinct) return std::nullopt;
    const bool whole_run = run.start == 0 && run.end == m.rows && run.elements.empty();
    if (k == not_known) {
      const std::optional<collision> c = compute(loop_rows{0, m.rows});
      whole.store(c ? some_collide : all_distinct, std::memory_order_relaxed);
      if (!c || whole_run) return c;
    }
    const std::lock_guard lock(mutex_);
    ++uses_;
    for (kept& e : kept_) {
      if (e.slot == slot && e.start == run.start && e.end == run.end && e.subset == run.subset) {
        e.last_use = uses_;
        return e.found;
      }
    }
    std::optional<collision> found = compute(run);
    // A range of no subset is kept by its bounds; a subset's by its id, whose elements change
    // only when its set is renumbered, which renumbers this map too (forget_ranges).
    if (run.elements.empty() || run.subset != 0) {
      if (kept_.size() == max_kept) {
        kept_.erase(std::min_element(kept_.begin(), kept_.end(),
                                     [](const kept& a, const kept& b) { return a.last_use < b.last_use; }));
      }
      kept_.push_back({slot, run.start, run.end, run.subset, uses_, found});
    }
    return found;
  }

  static std::optional<collision> repeat_in_rows(const target_rows& m, const loop_rows& run) {
    for (index_t p = run.start; p < run.end; ++p) {
      const index_t e = run.element(p);
      const std::size_t row = static_cast<std::size_t>(e) * static_cast<std::size_t>(m.arity);
      for (int i = 0; i < m.arity; ++i) {
        for (int j = i + 1; j < m.arity; ++j) {
          if (m.targets[row + static_cast<std::size_t>(i)] == m.targets[row + static_cast<std::size_t>(j)]) {
            return collision{e, e, m.targets[row + static_cast<std::size_t>(i)]};
          }
        }
      }
    }
    return std::nullopt;
  }

  // The first element, in the loop's order, that reaches a target the element before it there
  // reached (as one pass marking targets finds it), and that element.
  static std::optional<collision> collision_in(const target_rows& m, int slot, const loop_rows& run) {
    const int first_slot = slot == whole_map ? 0 : slot;
    const int slots = slot == whole_map ? m.arity : 1;
    const auto target_of = [&](index_t e, int j) {
      return m.targets[static_cast<std::size_t>(e) * static_cast<std::size_t>(m.arity) + static_cast<std::size_t>(j)];
    };
    const auto meet = [&](index_t before, index_t e) { return !(m.layered && before == e); };
    const std::int64_t visits = std::int64_t{run.end - run.start} * slots;
    // Few visits against many targets: sorted, the visits of each target in the loop's order.
    if (visits * 16 < m.target_count) {
      struct visit {
        index_t target;
        std::int64_t order;
        index_t element;
      };
      std::vector<visit> all;
      all.reserve(static_cast<std::size_t>(visits));
      for (index_t p = run.start; p < run.end; ++p) {
        const index_t e = run.element(p);
        for (int j = 0; j < slots; ++j) {
          all.push_back({target_of(e, first_slot + j), std::int64_t{p} * slots + j, e});
        }
      }
      std::sort(all.begin(), all.end(), [](const visit& a, const visit& b) {
        return a.target != b.target ? a.target < b.target : a.order < b.order;
      });
      const visit* earliest = nullptr;
      for (std::size_t i = 1; i < all.size(); ++i) {
        const visit &before = all[i - 1], &v = all[i];
        if (v.target == before.target && meet(before.element, v.element) &&
            (earliest == nullptr || v.order < earliest->order)) {
          earliest = &v;
        }
      }
      if (earliest == nullptr) return std::nullopt;
      const auto at = static_cast<std::size_t>(earliest - all.data());
      return collision{all[at - 1].element, earliest->element, earliest->target};
    }
    std::vector<index_t> reached_from(static_cast<std::size_t>(m.target_count), -1);
    for (index_t p = run.start; p < run.end; ++p) {
      const index_t e = run.element(p);
      for (int j = 0; j < slots; ++j) {
        const index_t t = target_of(e, first_slot + j);
        index_t& seen = reached_from[static_cast<std::size_t>(t)];
        if (seen >= 0 && meet(seen, e)) return collision{seen, e, t};
        seen = e;
      }
    }
    return std::nullopt;
  }

  // What is known of the whole set, per key: repeats, whole_map, then each slot.
  std::vector<std::atomic<signed char>> whole_set_;
  std::mutex mutex_;
  std::uint64_t uses_ = 0;
  std::vector<kept> kept_;
};

}  // namespace parloop::detail
