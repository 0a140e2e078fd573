//===- Generator.h - seeded random tile programs ----------------*- C++ -*-===//
//
// generate(seed) builds one well-typed kernel `k` over a 2-D grid of [BM, BN]
// blocks of ragged [M, N] tensors: element-wise chains over every dtype and
// float builtin, conversions, broadcasts, reductions and scans on either axis,
// argmax/argmin, transposes, reshapes and permutes, `where` and boolean masks,
// block, masked, shifted, gathered and scalar loads, block, element, masked
// and atomic stores, `dot` in a loop with an accumulator, loop-carried tiles,
// `if`/`else`, and random tune values (odd extents included). The same seed
// gives the same program and the same inputs on every machine.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TEST_DIFFTEST_GENERATOR_H
#define TESSERA_TEST_DIFFTEST_GENERATOR_H

#include "test/difftest/Program.h"

namespace tessera::difftest {

Program generate(uint64_t seed);

/// The text of a tile shape of `sh` in `p` ("[BM, BN]", "[]"...).
std::string shapeText(Shape sh);

/// A constant of type `ty` (the reducer's replacement for any subtree).
ExprP constantOf(Ty ty);

} // namespace tessera::difftest

#endif
