//===- Frame.h - one program's state in the interpreter ---------*- C++ -*-===//
//
// A Frame holds the slots of the program a worker thread runs (Execute.cpp),
// and the tile ops that access tensor arguments (Memory.cpp) read their
// operands and arguments through it. Internal to lib/Interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_INTERPRETER_FRAME_H
#define TESSERA_INTERPRETER_FRAME_H

#include "lib/Interpreter/Program.h"

#include <array>
#include <string>
#include <vector>

namespace tessera::interp {

struct Frame {
  const Kernel &kernel;
  llvm::ArrayRef<Arg> args;
  std::array<int64_t, 3> grid;
  std::array<int64_t, 3> pid = {0, 0, 0};
  std::vector<TileRef> slots;
  Fault fault;
  std::string printed;

  Frame(const Kernel &k, llvm::ArrayRef<Arg> a, std::array<int64_t, 3> g)
      : kernel(k), args(a), grid(g), slots(k.numSlots) {}
  const Tile &in(const Inst &i, unsigned n) const { return *slots[i.in[n]]; }
  void set(const Inst &i, TileRef t) { slots[i.out[0]] = std::move(t); }
};

/// tile.load: the tile at the operands' coordinates, padded outside the tensor.
TileRef load(const Inst &inst, const Frame &f);
/// tile.store: the elements inside the tensor (and a padded tile's blocks).
void store(const Inst &inst, const Frame &f);
/// tile.gather: an element per index tuple, the pad where masked or outside.
TileRef gather(const Inst &inst, const Frame &f);
/// tile.scatter: later elements of the access win where indices repeat.
void scatter(const Inst &inst, const Frame &f);
/// tile.atomic_rmw, or tile.atomic_cas (`cas`): the old values.
TileRef atomic(const Inst &inst, const Frame &f, bool cas);

} // namespace tessera::interp

#endif
