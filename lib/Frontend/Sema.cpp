//===- Sema.cpp - kernel-level semantic analysis ----------------*- C++ -*-===//
//
// Declares a kernel's parameters, dims, tune and where values; checks the clauses;
// and drives the analysis until the set of dims used as static extents is stable
// (each such dim is specialized on, then the kernel is checked again).
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/SemaImpl.h"

#include "dialects/Tile/Knobs.h"

#include "llvm/ADT/StringSet.h"
#include <cmath>
#include <cstdio>

using namespace tessera;
using namespace tessera::sema;

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Symbol &Checker::newSymbol(Symbol::Kind kind, llvm::StringRef name, SourceLoc loc) {
  Symbol &s = info_->symbols.emplace_back();
  s.kind = kind;
  s.name = name.str();
  s.loc = loc;
  s.id = nextId_++;
  return s;
}

const Symbol *Checker::lookup(llvm::StringRef name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(name);
    if (f != it->end())
      return f->second;
  }
  auto f = kernelScope_.find(name);
  return f == kernelScope_.end() ? nullptr : f->second;
}

static const char *kindWord(Symbol::Kind k) {
  switch (k) {
  case Symbol::TensorParam:
    return "a tensor parameter";
  case Symbol::ScalarParam:
    return "a scalar parameter";
  case Symbol::Dim:
    return "a dimension";
  case Symbol::Tune:
    return "a tunable parameter";
  case Symbol::Where:
    return "a 'where' value";
  case Symbol::Knob:
    return "a reserved knob";
  case Symbol::Let:
    return "a 'let' binding";
  case Symbol::Var:
    return "a variable";
  case Symbol::LoopVar:
    return "a loop variable";
  }
  return "a name";
}

bool Checker::declareKernelSymbols() {
  bool ok = true;
  auto clash = [&](llvm::StringRef name, SourceLoc loc) {
    if (parseDType(name) || isBuiltinFunction(name)) {
      error(loc, "'" + name + "' is a built-in name and cannot be redeclared");
      ok = false;
      return true;
    }
    auto f = kernelScope_.find(name);
    if (f == kernelScope_.end())
      return false;
    error(loc, "'" + name + "' is already declared as " + kindWord(f->second->kind) + " at line " +
                   std::to_string(f->second->loc.line));
    ok = false;
    return true;
  };
  // Parameters first, then the dims their types name.
  for (unsigned i = 0; i < k_.params.size(); ++i) {
    const Param &p = k_.params[i];
    Symbol *s = nullptr;
    bool knob = p.name == "num_warps" || p.name == "num_stages";
    if (knob) {
      error(p.loc, "'" + p.name + "' is a reserved knob and cannot name a parameter");
      ok = false;
    }
    if (!p.isTensor && isF8(p.dtype)) {
      error(p.typeLoc, "a scalar parameter cannot be " + dtypeName(p.dtype).str() +
                           ": pass an f32 (or f16, bf16) scalar and convert it with .to(" +
                           dtypeName(p.dtype).str() + ")");
      ok = false;
    }
    if (!knob && !clash(p.name, p.loc)) {
      s = &newSymbol(p.isTensor ? Symbol::TensorParam : Symbol::ScalarParam, p.name, p.loc);
      s->paramIndex = i;
      s->param = &p;
      s->type = p.isTensor ? ValueType() : ValueType::scalar(p.dtype);
      if (!p.isTensor) {
        auto v = spec_.dims.find(p.name);
        auto given = spec_.scalars.find(p.name);
        if (!isFloat(p.dtype))
          s->hostValue = v != spec_.dims.end()          ? v->second
                         : given != spec_.scalars.end() ? (int64_t)given->second
                                                        : 0;
      }
      kernelScope_[p.name] = s;
    }
    info_->params.push_back(s);
  }
  for (unsigned i = 0; i < k_.params.size(); ++i) {
    const Param &p = k_.params[i];
    for (unsigned a = 0; a < p.dims.size(); ++a) {
      const DimSpec &d = p.dims[a];
      if (!d.isName)
        continue;
      auto f = kernelScope_.find(d.name);
      if (f != kernelScope_.end()) {
        if (f->second->kind != Symbol::Dim) {
          error(d.loc, "dimension '" + d.name + "' has the name of " + kindWord(f->second->kind) +
                           " declared at line " + std::to_string(f->second->loc.line));
          ok = false;
        }
        continue;
      }
      if (d.name == "num_warps" || d.name == "num_stages") {
        error(d.loc, "'" + d.name + "' is a reserved knob and cannot name a dimension");
        ok = false;
        continue;
      }
      if (parseDType(d.name) || isBuiltinFunction(d.name)) {
        error(d.loc, "'" + d.name + "' is a built-in name and cannot name a dimension");
        ok = false;
        continue;
      }
      Symbol &s = newSymbol(Symbol::Dim, d.name, d.loc);
      s.type = ValueType::scalar(indexType());
      s.paramIndex = i;
      s.axis = a;
      auto v = spec_.dims.find(d.name);
      s.hostValue = v != spec_.dims.end() ? v->second : kDefaultDimValue;
      if (specialized_.count(d.name)) {
        s.constant = s.hostValue;
        info_->specializedDims[d.name] = *s.hostValue;
      }
      kernelScope_[d.name] = &s;
      info_->dims.push_back(&s);
    }
  }
  // Tune parameters and the reserved knobs.
  llvm::StringSet<> declared;
  for (TuneDecl &t : k_.tunes) {
    if (clash(t.name, t.loc))
      continue;
    bool knob = t.name == "num_warps" || t.name == "num_stages";
    for (auto &[v, loc] : t.values) {
      if (v < INT32_MIN || v > INT32_MAX)
        error(loc, "the tunable value " + std::to_string(v) + " does not fit in i32");
      else if (t.name == "num_warps" && (!isPow2(v) || v > 32))
        error(loc, "num_warps must be a power of two from 1 to 32, got " + std::to_string(v));
      else if (t.name == "num_stages" && (v < 1 || v > 16))
        error(loc, "num_stages must be from 1 to 16, got " + std::to_string(v));
    }
    Symbol &s = newSymbol(knob ? Symbol::Knob : Symbol::Tune, t.name, t.loc);
    s.type = ValueType::scalar(DType::I32);
    auto v = spec_.params.find(t.name);
    s.constant = v != spec_.params.end() ? v->second : t.values.front().first;
    kernelScope_[t.name] = &s;
    declared.insert(t.name);
    info_->tuneValues.push_back({t.name, *s.constant});
  }
  for (const char *knob : {"num_warps", "num_stages"}) {
    if (declared.count(knob) || kernelScope_.count(knob))
      continue;
    Symbol &s = newSymbol(Symbol::Knob, knob, k_.loc);
    s.type = ValueType::scalar(DType::I32);
    auto v = spec_.params.find(knob);
    s.constant =
        v != spec_.params.end()
            ? v->second
            : (llvm::StringRef(knob) == "num_warps" ? kDefaultNumWarps : kDefaultNumStages);
    kernelScope_[knob] = &s;
  }
  auto knobValue = [&](const char *name, int64_t fallback) {
    auto f = kernelScope_.find(name);
    return f != kernelScope_.end() && f->second->constant ? *f->second->constant : fallback;
  };
  info_->numWarps = knobValue("num_warps", kDefaultNumWarps);
  info_->numStages = knobValue("num_stages", kDefaultNumStages);
  // A bad declared default was reported at its value; check overrides here.
  if (spec_.params.count("num_warps") && (!isPow2(info_->numWarps) || info_->numWarps > 32)) {
    error(k_.loc,
          "num_warps must be a power of two from 1 to 32, got " + std::to_string(info_->numWarps));
    ok = false;
  }
  if (spec_.params.count("num_stages") && (info_->numStages < 1 || info_->numStages > 16)) {
    error(k_.loc, "num_stages must be from 1 to 16, got " + std::to_string(info_->numStages));
    ok = false;
  }
  // Overrides must name something the kernel declares.
  for (auto &[name, v] : spec_.params) {
    auto f = kernelScope_.find(name);
    if (f == kernelScope_.end() ||
        (f->second->kind != Symbol::Tune && f->second->kind != Symbol::Knob)) {
      std::string known;
      for (auto &t : k_.tunes)
        known += (known.empty() ? "" : ", ") + t.name;
      error(k_.loc, "kernel '" + k_.name + "' has no tunable parameter '" + name + "'" +
                        (known.empty() ? std::string(" (it declares none)")
                                       : " (it declares " + known + ")"));
      ok = false;
    } else if (v < INT32_MIN || v > INT32_MAX) {
      error(k_.loc, "--param " + name + "=" + std::to_string(v) + " does not fit in i32");
      ok = false;
    }
  }
  for (auto &[name, v] : spec_.scalars) {
    auto f = kernelScope_.find(name);
    if (f == kernelScope_.end() || f->second->kind != Symbol::ScalarParam) {
      error(k_.loc, "kernel '" + k_.name + "' has no scalar parameter '" + name + "'" +
                        (f != kernelScope_.end() && f->second->kind == Symbol::Dim
                             ? " ('" + name + "' is a dimension: --dim " + name + "=V)"
                             : std::string()));
      ok = false;
      continue;
    }
    DType t = f->second->type.dtype;
    if (isFloat(t))
      continue;
    if (!dtypeHolds(t, v)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", v);
      error(k_.loc, "--scalar " + name + "=" + text + " does not fit the " + dtypeName(t).str() +
                        " scalar '" + name + "'");
      ok = false;
    }
  }
  for (auto &[name, v] : spec_.dims) {
    auto f = kernelScope_.find(name);
    bool isScalarInt = f != kernelScope_.end() && f->second->kind == Symbol::ScalarParam &&
                       !isFloat(f->second->type.dtype);
    if (f == kernelScope_.end() || (f->second->kind != Symbol::Dim && !isScalarInt)) {
      error(k_.loc, "kernel '" + k_.name + "' has no dimension '" + name + "'");
      ok = false;
    } else if (f->second->kind == Symbol::Dim && (v <= 0 || (v > INT32_MAX && !spec_.index64))) {
      error(k_.loc, "--dim " + name + "=" + std::to_string(v) +
                        (v <= 0 ? ": dimensions must be positive"
                                : ": a dimension of 2^31 or more needs the 64-bit size class "
                                  "(--index64)"));
      ok = false;
    } else if (f->second->kind == Symbol::ScalarParam &&
               !dtypeHolds(f->second->type.dtype, (double)v)) {
      error(k_.loc, "--dim " + name + "=" + std::to_string(v) + " does not fit the " +
                        dtypeName(f->second->type.dtype).str() + " scalar '" + name + "'");
      ok = false;
    }
  }
  return ok;
}

void Checker::checkClauses() {
  // where: compile-time integers or bools, each visible to the later ones and to
  // the body.
  mode_ = Mode::Where;
  for (WhereDecl &w : k_.wheres) {
    check(*w.value);
    std::optional<int64_t> value;
    const ValueType &t = w.value->type;
    if (!t.isError()) {
      if (!t.isScalar() || !(isIndexInt(t.dtype) || t.dtype == DType::Bool))
        error(w.value->start(),
              "a 'where' value must be an i32 or i64 integer or a bool, got " + t.str());
      else if (!w.value->constant)
        error(w.value->start(), "the 'where' value '" + w.name +
                                    "' must be computable on the host from dims, integer "
                                    "scalars and tune values");
      else
        value = w.value->constant;
    }
    auto f = kernelScope_.find(w.name);
    if (isBuiltinFunction(w.name)) {
      error(w.loc, "'" + w.name + "' is a built-in name and cannot be redeclared");
      continue;
    }
    if (f != kernelScope_.end() || parseDType(w.name)) {
      error(w.loc,
            "'" + w.name + "' is already declared" +
                (f != kernelScope_.end() ? " as " + std::string(kindWord(f->second->kind)) +
                                               " at line " + std::to_string(f->second->loc.line)
                                         : std::string(" as an element type")));
      continue;
    }
    Symbol &s = newSymbol(Symbol::Where, w.name, w.loc);
    s.type =
        value ? ValueType::scalar(t.dtype == DType::Bool ? DType::Bool : DType::I32) : ValueType();
    s.constant = value;
    kernelScope_[w.name] = &s;
    if (value) {
      if (*value < INT32_MIN || *value > INT32_MAX)
        error(w.value->start(), "the 'where' value '" + w.name + "' = " + std::to_string(*value) +
                                    " does not fit in i32");
      info_->whereValues.push_back({w.name, *value});
    }
  }
  // grid: one to three integer expressions evaluated on the host at launch.
  mode_ = Mode::Grid;
  if (k_.grid.size() > 3)
    error(k_.gridLoc, "a grid has at most 3 dimensions, got " + std::to_string(k_.grid.size()));
  for (ExprPtr &g : k_.grid) {
    check(*g);
    const ValueType &t = g->type;
    if (!t.isError() && (!t.isScalar() || !isIndexInt(t.dtype)))
      error(g->start(), "a grid extent must be an i32 or i64 scalar, got " + t.str());
    else if (!t.isError() && t.dtype == DType::I64 && !spec_.index64)
      error(g->start(), "a grid extent must be i32; convert it with .to(i32)");
    else if (g->constant && *g->constant <= 0)
      error(g->start(), "a grid extent must be positive, got " + std::to_string(*g->constant));
  }
  mode_ = Mode::Body;
}

std::unique_ptr<KernelInfo> Checker::run() {
  info_->kernel = &k_;
  info_->index64 = spec_.index64;
  unsigned before = diags_.numErrors();
  declareKernelSymbols(); // errors are recorded; the rest is still checked
  checkClauses();
  scopes_.emplace_back();
  checkBlock(k_.body);
  scopes_.pop_back();
  if (diags_.numErrors() != before)
    return nullptr;
  return std::move(info_);
}

std::unique_ptr<KernelInfo> tessera::analyzeKernel(Kernel &kernel, const Specialization &spec,
                                                   DiagnosticEngine &diags) {
  std::set<std::string> specialized;
  // Each round may discover dims used as static extents; specialize on them and
  // check again. The set only grows and is bounded by the number of dims.
  for (unsigned round = 0;; ++round) {
    DiagnosticEngine local(diags.file());
    Checker c(kernel, spec, local, specialized);
    std::unique_ptr<KernelInfo> info = c.run();
    bool grew = false;
    for (const std::string &d : c.wantSpecialized())
      grew |= specialized.insert(d).second;
    if (grew && round < 64)
      continue;
    if (local.truncated())
      diags.markTruncated();
    for (const Diag &d : local.diags()) {
      if (d.severity == Severity::Error)
        diags.error(d.loc, d.message);
      else if (d.severity == Severity::Warning)
        diags.warning(d.loc, d.message);
      else
        diags.note(d.loc, d.message);
    }
    // The defaults are reported with or without errors: an error may stem from them.
    std::set<std::string> noted;
    for (const Symbol *s : c.defaulted())
      if (noted.insert(s->name).second)
        diags.note(s->loc, (s->kind == Symbol::Dim ? "dimension '" : "scalar '") + s->name +
                               "' has no compile-time value; using " + s->name + "=" +
                               std::to_string(*s->hostValue) + " (pass " +
                               (s->kind == Symbol::Dim ? "--dim " : "--scalar ") + s->name + "=V)");
    return info;
  }
}
