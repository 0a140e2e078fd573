//===- SemaAtomics.cpp - typing of the atomic built-ins ---------*- C++ -*-===//
//
// atomic_add, atomic_max, atomic_min and atomic_xchg take a tensor address and
// a value; atomic_cas an address, a compare value and a value. The address is
// either the element form `t[i...]` (indices broadcast to the access shape,
// with an optional `mask`) or the block form `t, [c...]` of store(), whose
// shape is the value's. Each returns the old values, of the access shape and
// the tensor's element type; a program may ignore them.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

#include "llvm/ADT/StringSwitch.h"

using namespace tessera;
using namespace tessera::sema;

namespace {
/// The element types an atomic supports, as written in its error.
struct AtomicTypes {
  llvm::SmallVector<DType, 5> types;
  const char *names;
};
AtomicTypes supported(llvm::StringRef fn) {
  if (fn == "atomic_add")
    return {{DType::F16, DType::BF16, DType::F32, DType::I32, DType::I64},
            "f16, bf16, f32, i32 and i64"};
  if (fn == "atomic_xchg")
    return {{DType::F16, DType::BF16, DType::F32, DType::I32, DType::I64},
            "f16, bf16, f32, i32 and i64"};
  return {{DType::F32, DType::I32, DType::I64}, "f32, i32 and i64"};
}
} // namespace

void Checker::checkAtomicCall(Expr &e, CallArgs &) {
  const std::string &fn = e.name;
  bool cas = fn == "atomic_cas";
  size_t nvals = cas ? 2 : 1;
  std::string operands = cas ? "cmp, v" : "v";
  bool element = !e.args.empty() && e.args[0]->kind == ExprKind::Index;
  size_t want = (element ? 1 : 2) + nvals;
  if (e.args.size() != want) {
    error(e.loc, fn + "() takes " +
                     (element ? "t[i...], " + operands + " (, mask = m)"
                              : "t, [c...], " + operands + " or t[i...], " + operands) +
                     "; got " + std::to_string(e.args.size()) + " argument" +
                     (e.args.size() == 1 ? "" : "s"));
    return;
  }
  const Symbol *t = nullptr;
  std::optional<llvm::SmallVector<int64_t, 4>> shape;
  if (element) {
    shape = checkSubscript(*e.args[0], fn);
    if (!shape)
      return;
    t = e.args[0]->args[0]->symbol;
  } else {
    t = tensorArg(*e.args[0], fn);
    if (!t || !checkCoords(*this, *e.args[1], *t, fn))
      return;
    if (!e.kwargs.empty()) {
      error(e.kwargs[0].loc, fn +
                                 "() with a coordinate list takes no keyword arguments; a mask "
                                 "needs the element form, " +
                                 fn + "(t[i, j], " + operands + ", mask = m)");
      return;
    }
  }
  DType dt = t->param->dtype;
  AtomicTypes types = supported(fn);
  if (!llvm::is_contained(types.types, dt)) {
    error(e.loc, fn + "() does not support the " + dtypeName(dt).str() + " tensor '" + t->name +
                     "'; it supports " + types.names);
    return;
  }
  // The values: in the block form the last one gives the shape.
  size_t first = element ? 1 : 2;
  for (size_t i = first; i < e.args.size(); ++i) {
    Expr &v = *e.args[i];
    check(v);
    if (v.type.isError())
      return;
    if (v.type.isVoid()) {
      error(v.start(), "this expression has no value");
      return;
    }
    if (v.type.dtype != dt && !v.type.literal) {
      error(v.start(), fn + "() on the " + dtypeName(dt).str() + " tensor '" + t->name +
                           "' needs " + dtypeName(dt).str() + " values, got " + v.type.str() +
                           "; convert with .to(" + dtypeName(dt).str() + ")" +
                           index64Hint(v.type.dtype, dt));
      return;
    }
    if (!coerce(v, dt, "the value of " + fn + "()"))
      return;
  }
  if (!element) {
    Expr &v = *e.args.back();
    size_t rank = t->param->dims.size();
    if (v.type.shape.size() > rank) {
      error(v.start(), fn + "() of " + v.type.str() + " into the rank-" + std::to_string(rank) +
                           " tensor '" + t->name + "': the value has more axes than the tensor");
      return;
    }
    shape = v.type.shape;
  }
  for (size_t i = first; i < e.args.size(); ++i)
    if (!fitsAccess(*this, *e.args[i], *shape, "the value"))
      return;
  for (KwArg &kw : e.kwargs) {
    if (kw.name != "mask") {
      error(kw.loc, "unknown keyword argument '" + kw.name + "' of " + fn + "(); expected mask");
      return;
    }
    if (&kw != &e.kwargs.front()) {
      error(kw.loc, "'mask' is given twice");
      return;
    }
    Expr &m = *kw.value;
    check(m);
    if (m.type.isError())
      return;
    if (!checkMask(*this, m, *shape))
      return;
  }
  e.type = shape->empty() ? ValueType::scalar(dt) : ValueType::tile(dt, *shape);
}
