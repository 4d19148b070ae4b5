// Planning half of StorageIndex: how each root is declared (P5, P6, P8, P17, M4), the names of
// every handle, the lookups the rewriter uses, and the declarations replacing each tile.alloc.
#include <set>
#include <stdexcept>

#include "compiler/passes/lower/StorageIndex.h"

namespace ptodiff::lower {

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }
std::string sp(MemSpace s) { return std::string(memSpaceName(s)); }

bool isFull(const Valid2& v, const Type& t) {
  return v[0].constant == t.rows() && v[1].constant == t.cols();
}

/// NZ <-> ZN (the box order and the order inside a box both flip), for fault NzZnSwapped.
Layout otherBoxOrder(Layout l) {
  auto flip = [](TileLayout t) {
    return t == TileLayout::row_major ? TileLayout::col_major
                                      : t == TileLayout::col_major ? TileLayout::row_major : t;
  };
  if (l.boxed()) l = Layout{flip(l.blayout), flip(l.slayout), l.fractal};
  return l;
}

}  // namespace

// ---- planning ----

void StorageIndex::checkDescriptors() const {
  for (const Descriptor& D : descriptors_) {
    if (!D.dynamic) continue;
    const std::string name = q(D.stem);
    if (D.regionUse)
      failure_.fail("V5", "tile", *D.regionUse,
                    "the runtime-valid storage of " + name + " is used inside a loop or branch; expected dynamic "
                    "valid state only in straight-line code");
    if (D.relabelOrAssemble)
      failure_.fail("V5", "tile", *D.relabelOrAssemble,
                    "the runtime-valid storage of " + name + " is relabelled or assembled; expected static valid "
                    "extents for reshape, transpose_view and assemble");
    if (D.windowParent)
      failure_.fail("V5", "tile", D.dynamicLoc,
                    "a window is cut from the runtime-valid storage of " + name +
                        "; expected windows of static-valid tiles only");
  }
  if (!plannerAssignsAddresses(context_.planner)) {
    // P15 for addressless roots: the interpreter (and PTOAS) need them to fit side by side.
    std::map<MemSpace, int64_t> total;
    for (const Root& r : roots_) {
      if (r.descriptors.empty()) continue;
      int64_t& t = total[r.space];
      t += r.capacity;
      const SpaceDesc& space = context_.target->space(r.space);
      if (t > space.usableEnd())
        failure_.fail("P15", "tile.alloc", r.loc,
                      "the addressless " + sp(r.space) + " allocations up to " + q(r.name) + " need " +
                          std::to_string(t) + " bytes; expected at most the " + std::to_string(space.usableEnd()) +
                          " usable bytes of " + std::string(context_.target->name));
    }
  }
}

void StorageIndex::planRoot(Root& r) {
  if (r.descriptors.empty()) {
    r.form = Root::Form::Unused;
    return;
  }
  if (r.space == MemSpace::Vec)
    planVecRoot(r);
  else
    planMatrixRoot(r);
}

void StorageIndex::planVecRoot(Root& r) {
  auto full = [&](const Descriptor& D) { return D.offset == 0 && D.bytes == r.capacity; };
  for (int d : r.descriptors) {
    Descriptor& D = descriptors_[d];
    if (D.type.layout.boxed())
      failure_.fail("P16", "tile.alloc", D.loc,
                    "the Vec view " + q(D.stem) + " of " + q(r.name) + " has a boxed layout; expected ND or DN Vec "
                    "views (boxed views are unsupported at the allocation)");
    if (D.bytes % 32 != 0)
      failure_.fail("P14", "tile.alloc", D.loc,
                    "the view " + q(D.stem) + " of " + q(r.name) + " spans " + std::to_string(D.bytes) +
                        " bytes; expected a multiple of 32");
    if (!D.dynamic) continue;
    if (r.descriptors.size() != 1 || !full(D))
      failure_.fail("V9", "tile", D.dynamicLoc,
                    "the runtime-valid tile " + q(D.stem) + " shares allocation " + q(r.name) +
                        " with other views or does not cover it; expected a dynamic tile to own its allocation");
    r.form = Root::Form::Typed;
    r.typedDescriptor = d;
    D.form = Descriptor::Form::TypedRoot;
    return;
  }
  if (r.descriptors.size() == 1 && full(descriptors_[r.descriptors[0]])) {
    r.form = Root::Form::Typed;  // P5
    r.typedDescriptor = r.descriptors[0];
    descriptors_[r.typedDescriptor].form = Descriptor::Form::TypedRoot;
    return;
  }
  // P8/P17: a full-capacity window parent (else a full-capacity descriptor with valid-rectangle
  // subviews) keeps a typed root, because PTOAS cannot subview a relabel of the byte root.
  int typed = -1;
  for (bool windowParentsFirst : {true, false}) {
    for (int d : r.descriptors) {
      const Descriptor& D = descriptors_[d];
      if (typed < 0 && full(D) && (windowParentsFirst ? D.windowParent : D.needsSubviews())) typed = d;
    }
  }
  if (typed >= 0) {
    r.form = Root::Form::Typed;
    r.typedDescriptor = typed;
    descriptors_[typed].form = Descriptor::Form::TypedRoot;
    for (int d : r.descriptors) {
      if (d == typed) continue;
      Descriptor& D = descriptors_[d];
      if (full(D) && !D.windowParent)
        D.form = Descriptor::Form::ReshapeOfTyped;  // other interpretations reshape the typed root
      else if (r.addressed())
        D.form = Descriptor::Form::AliasAlloc;
      else
        failure_.fail("S20", "tile.alloc", D.loc,
                      "the addressless allocation " + q(r.name) + " is typed as " + q(descriptors_[typed].stem) +
                          " and also holds " + (D.windowParent ? "the window parent " : "the interior view ") +
                          q(D.stem) + ", which would need a subview of a relabel; expected one window parent per "
                          "PTOAS allocation and full-capacity relabels beside it");
    }
    return;
  }
  r.form = Root::Form::Bytes;  // P6
  for (int d : r.descriptors) {
    Descriptor& D = descriptors_[d];
    if (D.needsSubviews()) {
      if (!r.addressed())
        failure_.fail("P17", "tile.alloc", D.loc,
                      "the window parent " + q(D.stem) + " is an interior view of the addressless allocation " +
                          q(r.name) + "; expected a full-capacity typed root for PTOAS window parents");
      D.form = Descriptor::Form::AliasAlloc;
    } else {
      D.form = full(D) ? Descriptor::Form::ByteReshape : Descriptor::Form::ByteView;
    }
  }
}

void StorageIndex::planMatrixRoot(Root& r) {
  r.form = Root::Form::Matrix;
  bool firstHandle = true;
  for (int d : r.descriptors) {
    Descriptor& D = descriptors_[d];
    if (!r.addressed() && (D.offset != 0 || D.bytes != r.capacity))
      failure_.fail("M4", "tile.alloc", D.loc,
                    "the addressless " + sp(r.space) + " allocation " + q(r.name) + " holds " + q(D.stem) + " at byte " +
                        std::to_string(D.offset) + " spanning " + std::to_string(D.bytes) + " of " +
                        std::to_string(r.capacity) + " bytes; expected one window per PTOAS allocation");
    if (r.addressed()) {
      D.form = Descriptor::Form::MatrixAlloc;
    } else {
      D.form = firstHandle ? Descriptor::Form::MatrixAlloc : Descriptor::Form::MatrixReshape;
      firstHandle = false;
    }
  }
}

void StorageIndex::nameHandles() {
  for (Root& r : roots_) {
    if (r.form == Root::Form::Bytes) r.byteHandle = names_.fresh(r.name);
    for (int d : r.descriptors) {
      Descriptor& D = descriptors_[d];
      if (D.dynamic) {
        D.dynamicHandle = names_.fresh(D.stem);
        continue;
      }
      if (D.form == Descriptor::Form::ByteView) {
        // P7: descriptors over the same bytes share one UINT8 window.
        for (int other : r.descriptors) {
          const Descriptor& O = descriptors_[other];
          if (other == d) break;
          if (O.form == Descriptor::Form::ByteView && O.offset == D.offset && O.bytes == D.bytes) D.byteView = O.byteView;
        }
        if (D.byteView.empty()) D.byteView = names_.fresh(r.name + "_" + std::to_string(D.offset));
      }
      for (Variant& v : D.variants) {
        bool declared = !D.matrix() || v.used;
        if (!declared) continue;
        std::string stem = v.stem.empty() ? D.stem + (v.key == "full" ? "_full" : "_" + v.key) : v.stem;
        v.handle = names_.fresh(stem);
      }
    }
  }
}

// ---- lookups ----

const std::string& StorageIndex::handle(int d, const Valid2& valid) const {
  const Descriptor& D = descriptors_.at(d);
  if (D.dynamic) return D.dynamicHandle;
  const std::string key = isFull(valid, D.type) ? "full" : validKey(valid);
  for (const Variant& v : D.variants)
    if (v.key == key && !v.handle.empty()) return v.handle;
  throw std::logic_error("LowerTileToBuffer: no handle for " + D.stem + " with valid " + key);
}

const std::string& StorageIndex::storageHandle(int slot) const {
  const ValueInfo& v = values_.at(slot);
  if (v.kind != ValueInfo::Kind::Storage) throw std::logic_error("LowerTileToBuffer: " + v.name + " is not storage");
  return handle(v.descriptor, v.valid);
}

const std::string& StorageIndex::baseHandle(int d) const {
  const Descriptor& D = descriptors_.at(d);
  if (D.dynamic) return D.dynamicHandle;
  if (D.variants[0].handle.empty()) throw std::logic_error("LowerTileToBuffer: " + D.stem + " has no base handle");
  return D.variants[0].handle;
}

ByteSpan StorageIndex::descriptorSpan(int d) const {
  const Descriptor& D = descriptors_.at(d);
  const Root& r = roots_.at(D.root);
  ByteSpan s;
  s.space = D.type.space;
  s.origin = r.addressed() ? -1 : D.root;
  s.begin = r.addr.value_or(0) + D.offset;
  s.end = s.begin + D.bytes;
  s.pitch = D.pitch();
  s.shape = D.type.shape;
  s.strided = !D.type.layout.boxed() && D.type.layout.blayout == TileLayout::row_major;
  s.rowBase = s.begin;
  s.rows = D.type.rows();
  s.width = s.pitch;
  return s;
}

ByteSpan StorageIndex::spanOf(int slot) const {
  const ValueInfo& v = values_.at(slot);
  if (v.kind == ValueInfo::Kind::Storage) return descriptorSpan(v.descriptor);
  if (v.kind == ValueInfo::Kind::Window) return windows_.at(v.window).span;
  throw std::logic_error("LowerTileToBuffer: spanOf a value without storage: " + v.name);
}

// ---- declarations ----

std::vector<StmtPtr> StorageIndex::declarations(int ri) const {
  const Root& r = roots_.at(ri);
  std::vector<StmtPtr> out;
  if (r.form == Root::Form::Unused) return out;
  auto loc = [&](const Descriptor& D) { return r.loc.known() ? r.loc : D.loc; };  // C10
  auto alloc = [&](std::optional<int64_t> address, SourceLoc at) {
    std::vector<ExprPtr> args;
    args.push_back(Expr::list({}, at));
    args.push_back(address ? intExpr(*address, at) : nullptr);
    return callExpr(Opcode::BufAlloc, std::move(args), at);
  };
  auto address = [&](const Descriptor& D) -> std::optional<int64_t> {
    if (!r.addressed()) return std::nullopt;
    return *r.addr + D.offset;
  };
  auto reshapeOf = [&](const std::string& from, SourceLoc at) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(from, at));
    return callExpr(Opcode::BufReshape, std::move(args), at);
  };
  auto subviewOf = [&](const std::string& from, int64_t row, int64_t col, const std::optional<Valid2>& valid,
                       SourceLoc at) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(from, at));
    args.push_back(pairExpr(intExpr(row, at), intExpr(col, at), at));
    args.push_back(valid ? validPair(*valid, at) : nullptr);
    return callExpr(Opcode::BufSubview, std::move(args), at);
  };

  if (r.form == Root::Form::Matrix) {
    std::string first;
    for (int d : r.descriptors) {
      const Descriptor& D = descriptors_[d];
      for (const Variant& v : D.variants) {
        if (!v.used) continue;
        Type t = bufferTypeOf(D.type, v.valid);
        // Fault NzZnSwapped: the root's first handle (its allocation) gets the other box order; the
        // relabels of the same bytes (transpose_view, PTOAS reshapes) keep theirs.
        if (context_.faults.on(Fault::NzZnSwapped) && r.space != MemSpace::Acc && first.empty())
          t.layout = otherBoxOrder(t.layout);
        if (r.addressed() || first.empty()) {
          out.push_back(annotatedAssign(v.handle, t, alloc(address(D), loc(D)), loc(D)));
          if (first.empty()) first = v.handle;
        } else {
          out.push_back(annotatedAssign(v.handle, t, reshapeOf(first, loc(D)), loc(D)));  // M4: PTOAS relabel
        }
      }
    }
    return out;
  }

  std::vector<int> order;
  if (r.form == Root::Form::Typed) order.push_back(r.typedDescriptor);
  for (int d : r.descriptors)
    if (d != r.typedDescriptor) order.push_back(d);

  std::set<std::string> declaredByteViews;
  if (r.form == Root::Form::Bytes) {
    Type bytes = Type::buffer(r.capacity / 32, 32, DType::UINT8, MemSpace::Vec);
    out.push_back(annotatedAssign(r.byteHandle, bytes, alloc(r.addr, r.loc), r.loc));
  }
  for (int d : order) {
    const Descriptor& D = descriptors_[d];
    const SourceLoc at = loc(D);
    if (D.dynamic) {
      out.push_back(annotatedAssign(D.dynamicHandle, dynamicBufferTypeOf(D.type), alloc(address(D), at), at));
      continue;
    }
    const std::string& base = D.variants[0].handle;
    switch (D.form) {
      case Descriptor::Form::TypedRoot:
      case Descriptor::Form::AliasAlloc:
        out.push_back(annotatedAssign(base, D.type, alloc(address(D), at), at));
        break;
      case Descriptor::Form::ReshapeOfTyped:
        out.push_back(annotatedAssign(base, D.type, reshapeOf(baseHandle(r.typedDescriptor), at), at));
        break;
      case Descriptor::Form::ByteReshape:
        out.push_back(annotatedAssign(base, D.type, reshapeOf(r.byteHandle, at), at));
        break;
      case Descriptor::Form::ByteView: {
        Type window = Type::buffer(D.bytes / 32, 32, DType::UINT8, MemSpace::Vec);
        if (declaredByteViews.insert(D.byteView).second)
          out.push_back(
              annotatedAssign(D.byteView, window, subviewOf(r.byteHandle, D.offset / 32, 0, std::nullopt, at), at));
        out.push_back(annotatedAssign(base, D.type, reshapeOf(D.byteView, at), at));
        break;
      }
      case Descriptor::Form::MatrixAlloc:
      case Descriptor::Form::MatrixReshape:
        throw std::logic_error("LowerTileToBuffer: matrix form in a Vec root");
    }
  }
  // P9: static valid rectangles are independent zero-offset subviews beside the allocation.
  for (int d : order) {
    const Descriptor& D = descriptors_[d];
    if (D.dynamic) continue;
    for (size_t i = 1; i < D.variants.size(); ++i) {
      const Variant& v = D.variants[i];
      out.push_back(annotatedAssign(v.handle, bufferTypeOf(D.type, v.valid),
                                    subviewOf(D.variants[0].handle, 0, 0, v.valid, loc(D)), loc(D)));
    }
  }
  return out;
}

}  // namespace ptodiff::lower
