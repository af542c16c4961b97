#include "fold_arena.hpp"

#include <algorithm>
#include <bit>

namespace xsim::fold {

namespace {
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t round_down(uint64_t v, uint64_t a) { return v / a * a; }
}  // namespace

uint64_t FoldArena::class_bytes(uint64_t bytes) {
  uint64_t pages = round_up(bytes, kPage) / kPage;
  if (pages > 8) {  // 8 classes per power of two
    const uint64_t step = uint64_t{1} << (std::bit_width(pages) - 1 - 3);
    pages = round_up(pages, step);
  }
  return pages * kPage;
}

Span FoldArena::head_pages(uint64_t user, uint64_t bytes) {
  return {round_down(user, kPage), round_up(user + std::min(bytes, kEdge), kPage)};
}

Span FoldArena::tail_pages(uint64_t user, uint64_t bytes) {
  const uint64_t end = user + bytes;
  return {round_down(end - std::min(bytes, kEdge), kPage), round_up(end, kPage)};
}

std::optional<FoldArena::Block> FoldArena::take(uint64_t bytes, uint64_t align) {
  if (bytes == 0 || align == 0 || (align & (align - 1)) != 0 || align > kMaxAlign) return std::nullopt;
  align = std::max(align, kPage);
  // A slot aligned to `align` (the reservation's start is aligned to kMaxAlign) when it comes from the top;
  // a reused slot of the class may not be: it is used only if the aligned request fits in it.
  const uint64_t need = bytes + (align > kPage ? align - kPage : 0);
  if (need < bytes) return std::nullopt;  // overflow
  const uint64_t cls = class_bytes(need);
  Block b;
  b.slot_bytes = cls;
  auto fl = free_.find(cls);
  if (fl != free_.end() && !fl->second.empty()) {
    b.slot = fl->second.back();
    fl->second.pop_back();
    const Private& p = private_[b.slot];
    b.old_head = p.head;
    b.old_tail = p.tail;
  } else {
    if (cls > capacity_ || top_ > capacity_ - cls) return std::nullopt;
    b.slot = top_;
    top_ += cls;
    b.fresh = true;
  }
  b.user = round_up(b.slot, align);
  b.head = head_pages(b.user, bytes);
  b.tail = tail_pages(b.user, bytes);
  private_[b.slot] = {b.head, b.tail};
  live_.emplace(b.user, Live{b.slot, cls, bytes});
  live_bytes_ += bytes;
  peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
  ++allocations_;
  return b;
}

bool FoldArena::give(uint64_t user) {
  auto it = live_.find(user);
  if (it == live_.end()) return false;
  live_bytes_ -= it->second.bytes;
  free_[it->second.slot_bytes].push_back(it->second.slot);
  live_.erase(it);
  return true;
}

uint64_t FoldArena::size_of(uint64_t user) const {
  auto it = live_.find(user);
  return it == live_.end() ? 0 : it->second.bytes;
}

uint64_t FoldArena::slot_of(uint64_t user) const {
  auto it = live_.find(user);
  return it == live_.end() ? UINT64_MAX : it->second.slot;
}

uint64_t FoldArena::free_slots() const {
  uint64_t n = 0;
  for (const auto& [cls, v] : free_) n += v.size();
  return n;
}

}  // namespace xsim::fold

#include "fold_range.hpp"

namespace xsim::fold {
State g_state;
}  // namespace xsim::fold
