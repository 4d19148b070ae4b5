#include "fuzz/gen/detail/Values.h"

namespace ptodiff::fuzz::detail {

// ---- intervals ----

Interval intervalAdd(Interval a, Interval b) { return {a.lo + b.lo, a.hi + b.hi}; }

Interval intervalSub(Interval a, Interval b) { return {a.lo - b.hi, a.hi - b.lo}; }

Interval intervalMul(Interval a, Interval b) {
  const double p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  return {*std::min_element(std::begin(p), std::end(p)), *std::max_element(std::begin(p), std::end(p))};
}

Interval intervalDiv(Interval a, Interval b) {
  // b does not contain 0, so the quotient is monotone in each argument on b's one sign.
  const double p[] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
  return {*std::min_element(std::begin(p), std::end(p)), *std::max_element(std::begin(p), std::end(p))};
}

Interval intervalMax(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }

Interval intervalMin(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; }

Interval intervalAbs(Interval a) {
  if (a.lo >= 0) return a;
  if (a.hi <= 0) return {-a.hi, -a.lo};
  return {0.0, a.magnitude()};
}

Interval intervalRelu(Interval a) { return {std::max(a.lo, 0.0), std::max(a.hi, 0.0)}; }

Interval intervalLrelu(Interval a, Interval slope) {
  // Positive lanes pass through; non-positive lanes are scaled: both parts lie in this hull.
  Interval scaled = intervalMul({std::min(a.lo, 0.0), std::min(a.hi, 0.0)}, slope);
  return Interval{std::max(a.lo, 0.0), std::max(a.hi, 0.0)}.hull(scaled);
}

// ---- masks ----

Mask Mask::rect(int64_t rows, int64_t cols, int64_t vr, int64_t vc) {
  Mask m = none(rows, cols);
  for (int64_t r = 0; r < std::min(vr, rows); ++r)
    for (int64_t c = 0; c < std::min(vc, cols); ++c) m.set(r, c, true);
  return m;
}

bool Mask::covers(int64_t vr, int64_t vc) const {
  if (vr > rows_ || vc > cols_) return false;
  for (int64_t r = 0; r < vr; ++r)
    for (int64_t c = 0; c < vc; ++c)
      if (!at(r, c)) return false;
  return true;
}

bool Mask::contains(const Mask& o) const {
  if (o.rows_ != rows_ || o.cols_ != cols_) return false;
  for (size_t i = 0; i < bits_.size(); ++i)
    if (o.bits_[i] && !bits_[i]) return false;
  return true;
}

Mask Mask::window(int64_t r0, int64_t c0, int64_t nr, int64_t nc) const {
  Mask m = none(nr, nc);
  for (int64_t r = 0; r < nr; ++r)
    for (int64_t c = 0; c < nc; ++c) m.set(r, c, at(r0 + r, c0 + c));
  return m;
}

void Mask::paste(int64_t r0, int64_t c0, const Mask& src) {
  for (int64_t r = 0; r < src.rows_; ++r)
    for (int64_t c = 0; c < src.cols_; ++c) set(r0 + r, c0 + c, src.at(r, c));
}

Mask Mask::intersect(const Mask& o) const {
  Mask m = *this;
  for (size_t i = 0; i < bits_.size(); ++i) m.bits_[i] = bits_[i] && o.bits_[i];
  return m;
}

Mask Mask::transposed() const {
  Mask m = none(cols_, rows_);
  for (int64_t r = 0; r < rows_; ++r)
    for (int64_t c = 0; c < cols_; ++c) m.set(c, r, at(r, c));
  return m;
}

Mask Mask::reshaped(int64_t rows, int64_t cols) const {
  Mask m = *this;
  m.rows_ = rows;
  m.cols_ = cols;
  return m;
}

int64_t Mask::widestCoveredCols(int64_t vr) const {
  int64_t vc = 0;
  while (vc < cols_ && covers(vr, vc + 1)) ++vc;
  return vc;
}

// ---- valid rules ----

int64_t windowValid(int64_t sourceValid, int64_t offset, int64_t window, std::optional<int64_t> requested) {
  int64_t available = std::clamp<int64_t>(sourceValid - offset, 0, window);
  return requested ? std::min(*requested, available) : available;
}

std::optional<std::array<int64_t, 2>> assembleValid(int64_t rows, int64_t cols, int64_t vr, int64_t vc,
                                                    int64_t r0, int64_t c0, int64_t svr, int64_t svc) {
  using V = std::array<int64_t, 2>;
  if (vr == rows && vc == cols) return V{vr, vc};  // a fully valid target stays full
  if (svr == 0 || svc == 0) return V{vr, vc};      // nothing valid written
  const int64_t rEnd = r0 + svr, cEnd = c0 + svc;
  if (vr == 0 || vc == 0) {
    if (r0 == 0 && c0 == 0) return V{svr, svc};
    return std::nullopt;
  }
  if (rEnd <= vr && cEnd <= vc) return V{vr, vc};
  if (r0 == 0 && c0 == 0 && rEnd >= vr && cEnd >= vc) return V{rEnd, cEnd};
  if (r0 == 0 && rEnd == vr && c0 <= vc) return V{vr, std::max(vc, cEnd)};
  if (c0 == 0 && cEnd == vc && r0 <= vr) return V{std::max(vr, rEnd), vc};
  return std::nullopt;
}

std::optional<std::array<int64_t, 2>> reshapeValid(int64_t cols, int64_t vr, int64_t vc, int64_t newRows,
                                                   int64_t newCols) {
  using V = std::array<int64_t, 2>;
  const int64_t prefix = vr * vc;
  if (prefix != 0 && vc != cols && vr != 1) return std::nullopt;
  if (prefix % newCols == 0 && prefix / newCols <= newRows) return V{prefix / newCols, newCols};
  if (prefix <= newCols) return V{1, prefix};
  return std::nullopt;
}

bool vecPitchOk(int64_t rows, int64_t cols, DType dt) {
  const int64_t line = (cols == 1 && rows > 1) ? rows : cols;
  return line * dtypeSize(dt) % 32 == 0;
}

void setStaticValid(Type& t, int64_t validRows, int64_t validCols) {
  t.valid = std::array<Extent, 2>{Extent::constant(validRows), Extent::constant(validCols)};
  t.canonicalizeValid();
}

Type tileType(int64_t rows, int64_t cols, DType dt, MemSpace space, int64_t validRows, int64_t validCols) {
  Type t = Type::tile(rows, cols, dt, space);
  setStaticValid(t, validRows, validCols);
  return t;
}

}  // namespace ptodiff::fuzz::detail
