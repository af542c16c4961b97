// SmallVec<T, N>: a vector of trivially copyable T whose first N elements live inside the object. Used for
// the engine's per-rank queues (arrivals, posted receives, unexpected messages, recent sends), which hold
// zero to a few entries nearly always: reading them then touches the rank's own record instead of a
// separate heap block per queue (one cache miss less per queue and message with millions of ranks).
// Layer: libxsim/runtime/core (xsim_core). Not thread-safe. Pointers into it are invalidated by growth and moves.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace xsim {

template <class T, uint32_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec moves its elements with memcpy");
  static_assert(N > 0);

 public:
  SmallVec() = default;
  ~SmallVec() { release(); }
  SmallVec(const SmallVec&) = delete;
  SmallVec& operator=(const SmallVec&) = delete;
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == cap_) grow();
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  // Shrinks to the first n elements (n <= size()).
  void truncate(size_t n) { size_ = static_cast<uint32_t>(n); }
  T* erase(T* pos) {
    T* last = end() - 1;
    if (pos != last) std::memmove(static_cast<void*>(pos), pos + 1, static_cast<size_t>(last - pos) * sizeof(T));
    --size_;
    return pos;
  }
  // Gives heap storage back when the elements fit inside again.
  void shrink_to_fit() {
    if (heap_ && size_ <= N) {
      T* h = heap_;
      heap_ = nullptr;
      std::memcpy(static_cast<void*>(inline_data()), h, size_ * sizeof(T));
      std::free(h);
      cap_ = N;
    }
  }

 private:
  T* data() { return heap_ ? heap_ : inline_data(); }
  const T* data() const { return heap_ ? heap_ : inline_data(); }
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  const T* inline_data() const { return reinterpret_cast<const T*>(inline_); }
  void grow() {
    uint32_t cap = cap_ * 2;
    T* h = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (!h) throw std::bad_alloc();
    std::memcpy(static_cast<void*>(h), data(), size_ * sizeof(T));
    std::free(heap_);
    heap_ = h;
    cap_ = cap;
  }
  void release() {
    std::free(heap_);
    heap_ = nullptr;
    size_ = 0;
    cap_ = N;
  }
  void take(SmallVec& o) {
    size_ = o.size_;
    cap_ = o.cap_;
    heap_ = o.heap_;
    if (!heap_) std::memcpy(static_cast<void*>(inline_data()), o.inline_data(), size_ * sizeof(T));
    o.heap_ = nullptr;
    o.size_ = 0;
    o.cap_ = N;
  }

  T* heap_ = nullptr;  // the elements when more than N were ever held (until shrink_to_fit)
  uint32_t size_ = 0, cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace xsim
