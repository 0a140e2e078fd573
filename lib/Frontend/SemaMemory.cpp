//===- SemaMemory.cpp - typing of load and store ----------------*- C++ -*-===//
//
// The two ways a body addresses a tensor. Block form: `load(t, [c...], [s...])`
// and `store(t, [c...], x)` with scalar coordinates, the last ones counting
// whole tiles. Element form: `load(t[i...], mask = m, pad = v)` and
// `store(t[i...], x, mask = m)`, where each index is an integer scalar or tile,
// and the indices broadcast together to the access shape (which the subscript
// expression records in its type); the mask and the stored value broadcast to
// it.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace tessera;
using namespace tessera::sema;

/// Checks the coordinate list of load/store against the tensor's rank.
bool tessera::sema::checkCoords(Checker &c, Expr &list, const Symbol &t, llvm::StringRef fn) {
  size_t rank = t.param->dims.size();
  if (list.kind != ExprKind::List) {
    c.error(list.start(),
            fn + "() needs a list of " + std::to_string(rank) + " coordinates, e.g. [i, 0]");
    return false;
  }
  if (list.args.size() != rank) {
    c.error(list.start(), fn + "() of the rank-" + std::to_string(rank) + " tensor '" + t.name +
                              "' needs " + std::to_string(rank) + " coordinate" +
                              (rank == 1 ? "" : "s") + ", got " + std::to_string(list.args.size()));
    return false;
  }
  bool ok = true;
  for (ExprPtr &x : list.args) {
    c.check(*x);
    if (x->type.isError()) {
      ok = false;
    } else if (!x->type.isScalar()) {
      c.error(x->start(), "a coordinate must be a scalar, got " + x->type.str());
      ok = false;
    } else {
      ok &= c.coerceIndex(*x, "a coordinate");
    }
  }
  return ok;
}
namespace {
/// Warns where a coordinate of load() or store() multiplies by the tile's
/// extent along its axis (`i * BLOCK - 1`: the element offset of languages
/// whose pointers count elements). Coordinates count whole tiles, so such a
/// coordinate addresses `extent` times further than the element offset it
/// looks like, silently.
void warnElementOffsets(Checker &c, Expr &list, llvm::ArrayRef<int64_t> shape, llvm::StringRef fn,
                        llvm::StringRef tensor) {
  if (list.kind != ExprKind::List || list.args.size() != shape.size())
    return;
  for (auto [axis, x] : llvm::enumerate(list.args)) {
    int64_t extent = shape[axis];
    Expr *m = x.get();
    if (m->kind == ExprKind::Binary && (m->binOp == BinOp::Add || m->binOp == BinOp::Sub))
      for (ExprPtr &o : x->args)
        if (o->kind == ExprKind::Binary && o->binOp == BinOp::Mul)
          m = o.get();
    if (extent < 2 || m->kind != ExprKind::Binary || m->binOp != BinOp::Mul)
      continue;
    if (llvm::none_of(m->args, [&](const ExprPtr &f) { return f->constant == extent; }))
      continue;
    c.warning(x->start(), fn +
                              "() coordinates count tiles, not elements: this one multiplies by "
                              "the tile's extent " +
                              std::to_string(extent) + " along axis " + std::to_string(axis) +
                              ", so it addresses " + std::to_string(extent) +
                              " times further than an element offset; for tile i, pass i; for the "
                              "elements from an offset, index them: " +
                              fn + "(" + tensor + "[off + arange(" + std::to_string(extent) + ")]" +
                              (fn == "load" ? ")" : ", x)"));
  }
}

} // namespace

std::optional<llvm::SmallVector<int64_t, 4>> Checker::checkSubscript(Expr &sub,
                                                                     llvm::StringRef fn) {
  Expr &base = *sub.args[0];
  const Symbol *t = base.kind == ExprKind::Name ? lookup(base.name) : nullptr;
  if (!t || t->kind != Symbol::TensorParam) {
    error(base.loc, "the first argument of " + fn +
                        "() must be a tensor parameter or a subscripted one, t[i, j]");
    return std::nullopt;
  }
  base.symbol = t;
  size_t rank = t->param->dims.size();
  for (IndexItem &item : sub.index)
    if (item.kind != IndexItem::Expr) {
      error(item.loc, std::string("a tensor subscript takes one integer index per axis, not '") +
                          (item.kind == IndexItem::Colon ? ":" : "None") +
                          "'; for a run of elements index with a tile, e.g. s + arange(BN)");
      return std::nullopt;
    }
  if (sub.index.size() != rank) {
    error(sub.loc, "the rank-" + std::to_string(rank) + " tensor '" + t->name + "' needs " +
                       std::to_string(rank) + (rank == 1 ? " index" : " indices") + ", got " +
                       std::to_string(sub.index.size()));
    return std::nullopt;
  }
  llvm::SmallVector<int64_t, 4> shape;
  bool ok = true;
  for (IndexItem &item : sub.index) {
    Expr &x = *item.expr;
    check(x);
    if (x.type.isError()) {
      ok = false;
      continue;
    }
    if (x.type.isVoid() || !isIndexInt(x.type.dtype)) {
      error(x.start(), "an index must be an i32 or i64 scalar or tile, got " + x.type.str());
      ok = false;
      continue;
    }
    llvm::SmallVector<int64_t, 4> before = shape;
    size_t n = std::max(shape.size(), x.type.shape.size());
    shape.resize(n, 1);
    std::rotate(shape.begin(), shape.begin() + before.size(), shape.end());
    for (size_t i = 0; i < n && ok; ++i) {
      int64_t d = i < n - x.type.shape.size() ? 1 : x.type.shape[i - (n - x.type.shape.size())];
      if (d != shape[i] && d != 1 && shape[i] != 1) {
        error(x.start(), "this index has shape " + shapeStr(x.type.shape) +
                             ", which does not broadcast with " + shapeStr(before) +
                             " of the indices before it; give each index its own axis, e.g. "
                             "x[r[:, None], c[None, :]]");
        ok = false;
      }
      shape[i] = std::max(shape[i], d);
    }
  }
  if (!ok)
    return std::nullopt;
  if (!shape.empty())
    sub.type = ValueType::tile(t->param->dtype, shape);
  else
    sub.type = ValueType::scalar(t->param->dtype);
  return shape;
}

/// Checks that `x` (a mask or a stored value) broadcasts to the access shape.
bool tessera::sema::fitsAccess(Checker &c, Expr &x, llvm::ArrayRef<int64_t> access,
                               llvm::StringRef what) {
  llvm::SmallVector<int64_t, 4> shape(x.type.shape);
  bool fits = shape.size() <= access.size();
  for (size_t i = 0; fits && i < shape.size(); ++i) {
    int64_t a = access[access.size() - shape.size() + i];
    fits = shape[i] == a || shape[i] == 1;
  }
  if (!fits)
    c.error(x.start(), what + " " + x.type.str() + " does not broadcast to the access shape " +
                           shapeStr(access) + " (the indices' broadcast shape)");
  return fits;
}

/// Checks a checked mask: bool, broadcasting to the access shape.
bool tessera::sema::checkMask(Checker &c, Expr &m, llvm::ArrayRef<int64_t> access) {
  if (m.type.isVoid() || m.type.dtype != DType::Bool) {
    c.error(m.start(), "mask must be bool, got " + m.type.str());
    return false;
  }
  return fitsAccess(c, m, access, "mask");
}

void Checker::checkElementAccess(Expr &e) {
  bool isLoad = e.name == "load";
  size_t positional = isLoad ? 1 : 2;
  auto shape = checkSubscript(*e.args[0], e.name);
  if (!shape)
    return;
  if (e.args.size() != positional) {
    error(e.args.size() > positional ? e.args[positional]->start() : e.loc,
          isLoad ? "load(t[...]) takes the subscripted tensor and keyword arguments mask and pad; "
                   "the indices go in the subscript"
                 : "store(t[...], x) takes the subscripted tensor, the value and a mask keyword");
    return;
  }
  DType dt = e.args[0]->type.dtype;
  bool ok = true;
  llvm::StringSet<> seen;
  for (KwArg &kw : e.kwargs) {
    if (!seen.insert(kw.name).second) {
      error(kw.loc, "'" + kw.name + "' is given twice");
      ok = false;
      continue;
    }
    if (kw.name != "mask" && (kw.name != "pad" || !isLoad)) {
      error(kw.loc, "unknown keyword argument '" + kw.name + "' of " + e.name + "(); expected " +
                        (isLoad ? "mask or pad" : "mask"));
      ok = false;
      continue;
    }
    Expr &v = *kw.value;
    check(v);
    if (v.type.isError()) {
      ok = false;
    } else if (v.type.isVoid()) {
      error(v.start(), "this expression has no value");
      ok = false;
    } else if (kw.name == "mask") {
      ok &= checkMask(*this, v, *shape);
    } else if (!v.type.isScalar()) {
      error(v.start(), "pad must be a scalar, got " + v.type.str());
      ok = false;
    } else {
      ok &= coerce(v, dt, "pad for a " + dtypeName(dt).str() + " tensor");
    }
  }
  if (!ok)
    return;
  if (isLoad) {
    e.type = e.args[0]->type;
    return;
  }
  Expr &v = *e.args[1];
  check(v);
  if (v.type.isError())
    return;
  if (v.type.isVoid()) {
    error(v.start(), "this expression has no value");
    return;
  }
  const Symbol *t = e.args[0]->args[0]->symbol;
  if (v.type.dtype != dt && !v.type.literal) {
    error(v.start(), "cannot store " + v.type.str() + " into the " + dtypeName(dt).str() +
                         " tensor '" + t->name + "'; convert it with .to(" + dtypeName(dt).str() +
                         ")" + index64Hint(v.type.dtype, dt));
    return;
  }
  if (!coerce(v, dt, "the stored value") || !fitsAccess(*this, v, *shape, "the stored value"))
    return;
  e.type = ValueType::voidType();
}

void Checker::checkMemoryCall(Expr &e, CallArgs &) {
  const std::string &fn = e.name;
  if (!e.args.empty() && e.args[0]->kind == ExprKind::Index) {
    checkElementAccess(e);
    return;
  }
  bool isLoad = fn == "load";
  auto value = [&](Expr &x) {
    check(x);
    if (x.type.isVoid()) {
      error(x.start(), "this expression has no value");
      x.type = ValueType();
    }
    return !x.type.isError();
  };
  if (!checkArity(e, isLoad ? 2 : 3, 3))
    return;
  for (KwArg &kw : e.kwargs)
    if (kw.name == "mask" || !isLoad) {
      error(kw.loc, fn + "() with a coordinate list takes " +
                        (isLoad ? "only the keyword pad" : "no keyword arguments") +
                        "; a mask needs the element form, " +
                        (isLoad ? "load(t[i, j], mask = m)" : "store(t[i, j], x, mask = m)"));
      return;
    }
  const Symbol *t = tensorArg(*e.args[0], fn);
  if (!t)
    return;
  bool ok = checkCoords(*this, *e.args[1], *t, fn);
  size_t rank = t->param->dims.size();
  DType dt = t->param->dtype;
  if (isLoad) {
    llvm::SmallVector<int64_t, 4> shape;
    if (e.args.size() == 3) {
      auto s = staticShape(*e.args[2], "the tile shape of load()");
      if (!s)
        return;
      shape = *s;
    }
    if (shape.size() > rank) {
      error(e.args[2]->start(), "load() of a rank-" + std::to_string(rank) +
                                    " tensor gives a tile of rank at most " + std::to_string(rank) +
                                    ", got " + shapeStr(shape));
      return;
    }
    for (KwArg &kw : e.kwargs) {
      if (&kw != &e.kwargs.front() && kw.name == e.kwargs.front().name) {
        error(kw.loc, "'" + kw.name + "' is given twice");
        ok = false;
        continue;
      }
      if (kw.name != "pad") {
        error(kw.loc, "unknown keyword argument '" + kw.name + "' of load(); expected pad");
        ok = false;
        continue;
      }
      if (!value(*kw.value)) {
        ok = false;
      } else if (!kw.value->type.isScalar()) {
        error(kw.value->start(), "pad must be a scalar, got " + kw.value->type.str());
        ok = false;
      } else {
        ok &= coerce(*kw.value, dt, "pad for a " + dtypeName(dt).str() + " tensor");
      }
    }
    if (ok) {
      e.type = ValueType::tile(dt, shape);
      if (shape.size() == rank)
        warnElementOffsets(*this, *e.args[1], shape, fn, t->name);
    }
    return;
  }
  Expr &v = *e.args[2];
  if (!value(v) || !ok)
    return;
  if (v.type.shape.size() > rank) {
    error(v.start(), "cannot store " + v.type.str() + " into the rank-" + std::to_string(rank) +
                         " tensor '" + t->name + "'");
    return;
  }
  if (v.type.dtype != dt && !v.type.literal) {
    error(v.start(), "cannot store " + v.type.str() + " into the " + dtypeName(dt).str() +
                         " tensor '" + t->name + "'; convert it with .to(" + dtypeName(dt).str() +
                         ")" + index64Hint(v.type.dtype, dt));
    return;
  }
  if (!coerce(v, dt, "the stored value"))
    return;
  if (v.type.shape.size() == rank)
    warnElementOffsets(*this, *e.args[1], v.type.shape, fn, t->name);
  e.type = ValueType::voidType();
}
