//===- Execute.cpp - running translated kernels over a grid ---------------===//
//
// One Frame per worker thread holds the slots of the program it runs. Tile
// ops (dot, reductions, scans, shape ops, control flow) are here; accesses to
// tensor arguments (loads, stores, gathers, scatters, atomics) are in
// Memory.cpp, element-wise ops and conversions in Elementwise.cpp. Programs are taken
// in launch order (x fastest) by a pool of threads; a kernel that prints runs
// on one thread so that its output comes program by program. The first fault
// (lowest program) stops the run and is reported at its op.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Frame.h"

#include "dialects/Tile/TileDialect.h"

#include "llvm/Support/Threading.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

using namespace tessera;
using namespace tessera::interp;

namespace {

TileRef scalarInt(EK k, int64_t v) {
  auto t = std::make_shared<Tile>(k, llvm::ArrayRef<int64_t>{});
  t->i[0] = wrapI(k, v);
  return t;
}

TileRef dot(const Inst &inst, const Tile &a, const Tile &b, const Tile &acc) {
  int64_t m = a.shape[0], kk = a.shape[1], n = b.shape[1];
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  std::vector<double> row(n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j)
      row[j] = acc.f[i * n + j];
    for (int64_t p = 0; p < kk; ++p) {
      double av = a.f[i * kk + p];
      const double *brow = &b.f[p * n];
      for (int64_t j = 0; j < n; ++j)
        row[j] += av * brow[j];
    }
    for (int64_t j = 0; j < n; ++j)
      out->f[i * n + j] = roundF(inst.ek, row[j]);
  }
  return out;
}

/// The lines of `src` along `axis` (reductions and scans): outer x inner of
/// them, each `ext` long, line (o, in) from o * ext * inner + in in steps of
/// `inner`.
struct AxisLines {
  int64_t outer = 1, inner = 1, ext;
};
AxisLines linesAlong(const Tile &src, int64_t axis) {
  AxisLines l{1, 1, src.shape[axis]};
  for (int64_t d = 0; d < axis; ++d)
    l.outer *= src.shape[d];
  for (size_t d = axis + 1; d < src.shape.size(); ++d)
    l.inner *= src.shape[d];
  return l;
}

/// Integer sum (wrapping in 64 bits), max or min.
int64_t combineI(mlir::tile::ReduceKind kind, int64_t acc, int64_t v) {
  return kind == mlir::tile::ReduceKind::sum   ? (int64_t)((uint64_t)acc + (uint64_t)v)
         : kind == mlir::tile::ReduceKind::max ? std::max(acc, v)
                                               : std::min(acc, v);
}

TileRef reduce(const Inst &inst, const Tile &src) {
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  auto [outer, inner, ext] = linesAlong(src, inst.a);
  auto kind = (mlir::tile::ReduceKind)inst.b;
  bool fl = isFloatEK(src.ek);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t first = o * ext * inner + in;
      if (fl) {
        double acc = kind == mlir::tile::ReduceKind::sum ? 0.0 : src.f[first];
        for (int64_t x = 0; x < ext; ++x) {
          double v = src.f[first + x * inner];
          if (kind == mlir::tile::ReduceKind::sum)
            acc += v;
          else if (std::isnan(v) || std::isnan(acc))
            acc = std::numeric_limits<double>::quiet_NaN();
          else
            acc = kind == mlir::tile::ReduceKind::max ? std::max(acc, v) : std::min(acc, v);
        }
        out->f[o * inner + in] = roundF(inst.ek, acc);
      } else {
        int64_t acc = kind == mlir::tile::ReduceKind::sum ? 0 : src.i[first];
        for (int64_t x = 0; x < ext; ++x)
          acc = combineI(kind, acc, src.i[first + x * inner]);
        out->i[o * inner + in] = wrapI(inst.ek, acc);
      }
    }
  return out;
}

/// An inclusive scan along inst.a (tile.scan): sums accumulate in double (in
/// wrapping 64-bit arithmetic for integers), each output rounded to the type.
TileRef scan(const Inst &inst, const Tile &src) {
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  auto [outer, inner, ext] = linesAlong(src, inst.a);
  auto kind = (mlir::tile::ReduceKind)inst.b;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t first = o * ext * inner + in;
      if (isFloatEK(src.ek)) {
        double acc = 0;
        for (int64_t x = 0; x < ext; ++x) {
          double v = src.f[first + x * inner];
          if (kind == mlir::tile::ReduceKind::sum)
            acc = x ? acc + v : v;
          else if (x && (std::isnan(v) || std::isnan(acc)))
            acc = std::numeric_limits<double>::quiet_NaN();
          else if (x && v == acc) // -0 orders below +0, as llvm.maximum/minimum have it
            acc = (kind == mlir::tile::ReduceKind::max) == std::signbit(acc) ? v : acc;
          else
            acc = !x                                    ? v
                  : kind == mlir::tile::ReduceKind::max ? std::max(acc, v)
                                                        : std::min(acc, v);
          out->f[first + x * inner] = roundF(inst.ek, acc);
        }
      } else {
        int64_t acc = 0;
        for (int64_t x = 0; x < ext; ++x) {
          int64_t v = src.i[first + x * inner];
          acc = x ? combineI(kind, acc, v) : v;
          out->i[first + x * inner] = wrapI(inst.ek, acc);
        }
      }
    }
  return out;
}

/// NumPy broadcast (right-aligned); also a plain copy for equal shapes.
TileRef broadcast(const Inst &inst, const Tile &src) {
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  size_t r = inst.shape.size(), sr = src.shape.size();
  llvm::SmallVector<int64_t, 4> sstride(r, 0);
  int64_t s = 1;
  for (int d = (int)sr - 1; d >= 0; --d) {
    size_t od = r - sr + d;
    sstride[od] = src.shape[d] == 1 ? 0 : s;
    s *= src.shape[d];
  }
  llvm::SmallVector<int64_t, 4> idx(r, 0);
  int64_t n = out->size();
  bool fl = isFloatEK(inst.ek);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (size_t d = 0; d < r; ++d)
      off += idx[d] * sstride[d];
    if (fl)
      out->f[e] = src.f[off];
    else
      out->i[e] = src.i[off];
    for (int d = (int)r - 1; d >= 0; --d) {
      if (++idx[d] < inst.shape[d])
        break;
      idx[d] = 0;
    }
  }
  return out;
}

bool exec(const Body &body, Frame &f);

/// Runs `b` with its block arguments bound to `vals`; returns its yields.
bool call(const Body &b, Frame &f, llvm::ArrayRef<TileRef> vals, std::vector<TileRef> &yields) {
  for (auto [slot, v] : llvm::zip(b.args, vals))
    f.slots[slot] = v;
  if (!exec(b, f))
    return false;
  yields.clear();
  for (int s : b.yields)
    yields.push_back(f.slots[s]);
  return true;
}

/// tile.associative_scan: each line folded in order through the combiner
/// (the running value first), one scalar call per element.
bool scanWith(const Inst &inst, Frame &f) {
  const Tile &src = f.in(inst, 0);
  auto out = std::make_shared<Tile>(inst.ek, inst.shape);
  auto [outer, inner, ext] = linesAlong(src, inst.a);
  bool isF = isFloatEK(src.ek);
  auto element = [&](int64_t idx) {
    auto t = std::make_shared<Tile>(src.ek, llvm::ArrayRef<int64_t>{});
    if (isF)
      t->f[0] = src.f[idx];
    else
      t->i[0] = src.i[idx];
    return t;
  };
  std::vector<TileRef> yields;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t first = o * ext * inner + in;
      TileRef acc = element(first);
      for (int64_t x = 0; x < ext; ++x) {
        int64_t idx = first + x * inner;
        if (x) {
          if (!call(inst.bodies[0], f, {acc, element(idx)}, yields))
            return false;
          acc = yields[0];
        }
        if (isF)
          out->f[idx] = acc->f[0];
        else
          out->i[idx] = acc->i[0];
      }
    }
  f.set(inst, out);
  return true;
}

bool control(const Inst &inst, Frame &f) {
  std::vector<TileRef> vals, next;
  if (inst.code == Code::For) {
    const Tile &lb = f.in(inst, 0), &ub = f.in(inst, 1), &st = f.in(inst, 2);
    int64_t lo = lb.i[0], hi = ub.i[0], step = st.i[0];
    for (size_t i = 3; i < inst.in.size(); ++i)
      vals.push_back(f.slots[inst.in[i]]);
    if (lo < hi && step <= 0) {
      f.fault = Fault{inst.op, "the loop step must be positive, got " + std::to_string(step)};
      return false;
    }
    int64_t trips = lo < hi ? (hi - lo + step - 1) / step : 0;
    for (int64_t t = 0; t < trips; ++t) {
      std::vector<TileRef> args = {scalarInt(lb.ek, lo + t * step)};
      args.insert(args.end(), vals.begin(), vals.end());
      if (!call(inst.bodies[0], f, args, next))
        return false;
      vals.swap(next);
    }
  } else if (inst.code == Code::If) {
    bool c = f.in(inst, 0).i[0] != 0;
    if (!call(inst.bodies[c ? 0 : 1], f, {}, vals))
      return false;
  } else { // While: the before region yields (condition, values...)
    for (int s : inst.in)
      vals.push_back(f.slots[s]);
    for (;;) {
      if (!call(inst.bodies[0], f, vals, next))
        return false;
      bool c = next[0]->i[0] != 0;
      vals.assign(next.begin() + 1, next.end());
      if (!c)
        break;
      if (!call(inst.bodies[1], f, vals, next))
        return false;
      vals.swap(next);
    }
  }
  for (auto [slot, v] : llvm::zip(inst.out, vals))
    f.slots[slot] = v;
  return true;
}

bool exec(const Body &body, Frame &f) {
  for (const Inst &inst : body.insts) {
    switch (inst.code) {
    case Code::Const:
      f.set(inst, inst.cst);
      break;
    case Code::ProgramId:
      f.set(inst, scalarInt(EK::I32, f.pid[inst.a]));
      break;
    case Code::NumPrograms:
      f.set(inst, scalarInt(EK::I32, f.grid[inst.a]));
      break;
    case Code::Dim:
      f.set(inst, scalarInt(inst.ek, f.args[inst.a].shape[inst.b])); // i32 or i64
      break;
    case Code::Arange: {
      auto t = std::make_shared<Tile>(EK::I32, inst.shape);
      for (int64_t e = 0; e < t->size(); ++e)
        t->i[e] = e;
      f.set(inst, t);
      break;
    }
    case Code::Splat:
    case Code::Broadcast:
      f.set(inst, broadcast(inst, f.in(inst, 0)));
      break;
    case Code::ExpandDims:
    case Code::Reshape: { // the same elements, row-major, in a new shape
      auto t = std::make_shared<Tile>(f.in(inst, 0));
      t->shape.assign(inst.shape.begin(), inst.shape.end());
      f.set(inst, t);
      break;
    }
    case Code::Transpose: {
      const Tile &s = f.in(inst, 0);
      auto t = std::make_shared<Tile>(inst.ek, inst.shape);
      int64_t r = s.shape[0], c = s.shape[1];
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j) {
          if (isFloatEK(inst.ek))
            t->f[j * r + i] = s.f[i * c + j];
          else
            t->i[j * r + i] = s.i[i * c + j];
        }
      f.set(inst, t);
      break;
    }
    case Code::Permute: {
      // Result axis k is source axis dims[k]: walk the result, row-major.
      const Tile &s = f.in(inst, 0);
      auto t = std::make_shared<Tile>(inst.ek, inst.shape);
      size_t r = inst.shape.size();
      llvm::SmallVector<int64_t, 4> srcStride(r, 1), idx(r, 0);
      for (int64_t d = (int64_t)r - 2; d >= 0; --d)
        srcStride[d] = srcStride[d + 1] * s.shape[d + 1];
      for (int64_t e = 0; e < t->size(); ++e) {
        int64_t from = 0;
        for (size_t k = 0; k < r; ++k)
          from += idx[k] * srcStride[inst.dims[k]];
        if (isFloatEK(inst.ek))
          t->f[e] = s.f[from];
        else
          t->i[e] = s.i[from];
        for (int64_t k = (int64_t)r - 1; k >= 0 && ++idx[k] == inst.shape[k]; --k)
          idx[k] = 0;
      }
      f.set(inst, t);
      break;
    }
    case Code::Convert:
      f.set(inst, evalConvert(inst, f.in(inst, 0)));
      break;
    case Code::Load:
      f.set(inst, load(inst, f));
      break;
    case Code::Store:
      store(inst, f);
      break;
    case Code::Gather:
      f.set(inst, gather(inst, f));
      break;
    case Code::Scatter:
      scatter(inst, f);
      break;
    case Code::MultipleOf: {
      const Tile &v = f.in(inst, 0);
      for (int64_t x : v.i)
        if (x % inst.a != 0) {
          f.fault = {inst.op, "multiple_of(" + std::to_string(inst.a) + ") does not hold: " +
                                  std::to_string(x) + " is not a multiple of it"};
          return false;
        }
      f.set(inst, f.slots[inst.in[0]]);
      break;
    }
    case Code::AtomicRMW:
    case Code::AtomicCAS:
      f.set(inst, atomic(inst, f, inst.code == Code::AtomicCAS));
      break;
    case Code::Dot:
      f.set(inst, dot(inst, f.in(inst, 0), f.in(inst, 1), f.in(inst, 2)));
      break;
    case Code::Reduce:
      f.set(inst, reduce(inst, f.in(inst, 0)));
      break;
    case Code::Scan:
      f.set(inst, scan(inst, f.in(inst, 0)));
      break;
    case Code::Assert:
      for (int64_t x : f.in(inst, 0).i)
        if (!x) {
          f.fault = {inst.op, inst.text};
          return false;
        }
      break;
    case Code::Print: {
      llvm::raw_string_ostream os(f.printed);
      os << "program (" << f.pid[0] << ", " << f.pid[1] << ", " << f.pid[2] << "): " << inst.text;
      printTile(os, f.in(inst, 0));
      os << "\n";
      break;
    }
    case Code::For:
    case Code::If:
    case Code::While:
      if (!control(inst, f))
        return false;
      break;
    case Code::ScanWith:
      if (!scanWith(inst, f))
        return false;
      break;
    default: {
      llvm::SmallVector<const Tile *, 3> ins;
      for (int s : inst.in)
        ins.push_back(f.slots[s].get());
      TileRef r = evalElementwise(inst, ins, f.fault);
      if (!r)
        return false;
      f.set(inst, std::move(r));
      break;
    }
    }
  }
  return true;
}

} // namespace

mlir::LogicalResult tessera::interp::run(mlir::tile::KernelOp kernel, llvm::ArrayRef<Arg> args,
                                         const Options &opts) {
  mlir::FailureOr<Kernel> k = translate(kernel, args);
  if (mlir::failed(k))
    return mlir::failure();
  for (int64_t g : opts.grid)
    if (g < 0)
      return kernel.emitError("the grid clause gives a negative extent (") << g << ")";
  int64_t total = opts.grid[0] * opts.grid[1] * opts.grid[2];
  llvm::raw_ostream &out = opts.out ? *opts.out : llvm::outs();
  unsigned threads =
      opts.threads ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
  if (k->prints)
    threads = 1;
  threads = (unsigned)std::min<int64_t>(threads, std::max<int64_t>(total, 1));

  std::atomic<int64_t> nextProgram{0};
  std::atomic<bool> stop{false};
  std::mutex faultMutex;
  Fault first;
  int64_t firstAt = std::numeric_limits<int64_t>::max();
  auto worker = [&]() {
    Frame f(*k, args, opts.grid);
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (arg.isTensor)
        continue;
      EK ek = k->argKinds[i];
      auto t = std::make_shared<Tile>(ek, llvm::ArrayRef<int64_t>{});
      if (isFloatEK(ek))
        t->f[0] = roundF(ek, arg.scalar);
      else
        t->i[0] = ek == EK::I1 ? arg.scalar != 0 : wrapI(ek, (int64_t)arg.scalar);
      f.slots[k->body.args[i]] = t;
    }
    while (!stop.load(std::memory_order_relaxed)) {
      int64_t p = nextProgram.fetch_add(1);
      if (p >= total)
        break;
      f.pid = {p % opts.grid[0], (p / opts.grid[0]) % opts.grid[1],
               p / (opts.grid[0] * opts.grid[1])};
      bool ok = exec(k->body, f);
      if (!f.printed.empty()) {
        out << f.printed;
        f.printed.clear();
      }
      if (!ok) {
        std::lock_guard<std::mutex> lock(faultMutex);
        if (p < firstAt) {
          firstAt = p;
          first = f.fault;
          first.msg += " (in program (" + std::to_string(f.pid[0]) + ", " +
                       std::to_string(f.pid[1]) + ", " + std::to_string(f.pid[2]) + "))";
        }
        stop = true;
        break;
      }
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(worker);
    for (auto &t : pool)
      t.join();
  }
  out.flush();
  if (first)
    return first.op->emitError(first.msg), mlir::failure();
  return mlir::success();
}
