// A memo of element-kernel results. A campaign case runs each op in its Tile run and again in
// every planner's planned run and Buffer run, on equal operands, and its scalar sets run the
// oracle's float64 product on equal operands too; a kernel's result is a pure function of its
// operands. Three kinds are remembered, where recomputing costs more than comparing operands:
// - matmul, numeric: of the operands' bits (interp/Arith.cpp, one memo per thread);
// - matmul and the elementwise kernels, symbolic: of the operands' formula ids in one pool
//   (interp/Symbolic.cpp, memos per ExprPool, emptied with it). An elementwise hit copies N ids
//   instead of interning N formulas, each a hash-table probe that misses the cache;
// - the oracle's float64 matmul: of its operands' values and bounds and the rounding it bounds
//   with (oracle/ReferenceTile.cpp, one memo per thread).
// A matmul repeat copies M*N stored elements instead of folding M*N*K.
//
// Keys hold every operand element and are compared whole, never by hash alone, so a hit returns
// exactly what the kernel would compute.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace ptodiff {

class KernelMemo {
 public:
  /// A memo of the last `capacity` results.
  explicit KernelMemo(size_t capacity = 64) : entries_(capacity) {}
  /// A strided 2-D array of `elementBytes`-byte elements, rows `rowStride` elements apart.
  struct Matrix {
    const void* data = nullptr;
    int64_t rows = 0, cols = 0, rowStride = 0;
    size_t elementBytes = 0;
  };

  /// What a result depends on: a few numbers (kernel, dtype, extents) and the operands, packed densely.
  class Key {
   public:
    Key(std::initializer_list<int64_t> header, std::initializer_list<Matrix> operands)
        : Key(header, std::span<const Matrix>(operands.begin(), operands.size())) {}
    Key(std::initializer_list<int64_t> header, std::span<const Matrix> operands) {
      size_t size = header.size() * sizeof(int64_t);
      for (const Matrix& m : operands) size += static_cast<size_t>(m.rows * m.cols) * m.elementBytes;
      bytes_.resize(size);
      uint8_t* at = bytes_.data();
      for (int64_t h : header) {
        std::memcpy(at, &h, sizeof h);
        at += sizeof h;
      }
      for (const Matrix& m : operands) at = pack(m, at);
      hash_ = std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(bytes_.data()), size));
    }
    bool operator==(const Key& o) const { return hash_ == o.hash_ && bytes_ == o.bytes_; }

   private:
    std::vector<uint8_t> bytes_;
    size_t hash_ = 0;
  };

  /// A strided 2-D array a recalled result is copied into (same form as Matrix, writable).
  struct Target {
    void* data = nullptr;
    int64_t rows = 0, cols = 0, rowStride = 0;
    size_t elementBytes = 0;
  };

  /// Copies the result stored under `key` into `targets` (as `store` was given it, in order) and
  /// returns true; false when nothing is stored under `key`.
  bool recall(const Key& key, std::initializer_list<Target> targets) const {
    for (const Entry& e : entries_) {
      if (!e.key || !(*e.key == key)) continue;
      const uint8_t* from = e.result.data();
      for (const Target& t : targets) {
        const size_t row = static_cast<size_t>(t.cols) * t.elementBytes;
        for (int64_t r = 0; r < t.rows; ++r) {
          std::memcpy(static_cast<uint8_t*>(t.data) + static_cast<size_t>(r * t.rowStride) * t.elementBytes, from, row);
          from += row;
        }
      }
      return true;
    }
    return false;
  }
  /// Stores `results` (a kernel may have more than one output) densely, one after the
  /// other, under `key`, replacing the oldest entry once the memo is full.
  void store(Key key, std::initializer_list<Matrix> results) {
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    e.key = std::move(key);
    size_t size = 0;
    for (const Matrix& m : results) size += static_cast<size_t>(m.rows * m.cols) * m.elementBytes;
    e.result.resize(size);
    uint8_t* at = e.result.data();
    for (const Matrix& m : results) at = pack(m, at);
  }
  void clear() {
    for (Entry& e : entries_) e.key.reset();
    next_ = 0;
  }

 private:
  struct Entry {
    std::optional<Key> key;
    std::vector<uint8_t> result;
  };
  // A case's distinct results (one per kernel call and loop trip) must all fit: its runs replay
  // them in the same cyclic order, which a smaller oldest-first memo would miss every time.
  std::vector<Entry> entries_;
  size_t next_ = 0;

  /// Copies `m`'s rows to `at`, densely; returns the end of what it wrote.
  static uint8_t* pack(const Matrix& m, uint8_t* at) {
    const size_t row = static_cast<size_t>(m.cols) * m.elementBytes;
    for (int64_t r = 0; r < m.rows; ++r) {
      std::memcpy(at, static_cast<const uint8_t*>(m.data) + static_cast<size_t>(r * m.rowStride) * m.elementBytes, row);
      at += row;
    }
    return at;
  }
};

}  // namespace ptodiff
