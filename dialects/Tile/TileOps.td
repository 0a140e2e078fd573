//===- TileOps.td - tile dialect operations ----------------------*- tablegen -*-===//
//
// The ops of the tile dialect. Shapes are static; verifiers (ODS constraints first,
// C++ in TileOps.cpp for what ODS cannot say) enforce the shape and dtype rules of
// the language so that later passes may rely on them.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "TileDialect.td"
include "TileTypes.td"
include "TileAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"

def Tile_Axis : ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    IsolatedFromAbove, Symbol,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a kernel: a body run once per program of a launch grid";
  let description = [{
    A GPU kernel. The `body` region runs once for every program of the launch
    grid; the `grid` region, which takes the same arguments, computes the grid's
    extents on the host and yields one to three `i32` values. Kernels return no
    values. Tune and `where` values the kernel was specialized on are recorded in
    the `tile.params` attribute, dims specialized as static extents in
    `tile.specialized_dims`.

    ```mlir
    tile.kernel @copy(%x: !tile.tensor<?xf32>, %y: !tile.tensor<?xf32>)
        attributes {tile.num_warps = 4 : i64} grid {
    ^bb0(%gx: !tile.tensor<?xf32>, %gy: !tile.tensor<?xf32>):
      %n = tile.dim %gx[0] : !tile.tensor<?xf32>
      %c = arith.constant 128 : i32
      %g = arith.ceildivsi %n, %c : i32
      tile.yield %g : i32
    } {
      %p = tile.program_id 0
      %t = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<128xf32>
      tile.store %y[%p], %t : !tile.tensor<?xf32>, tensor<128xf32>
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type);
  let regions = (region AnyRegion:$body, AnyRegion:$grid);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    /// `tile.num_warps` and `tile.num_stages`, or their defaults (Knobs.h).
    unsigned getNumWarps();
    unsigned getNumStages();
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">, ReturnLike, Terminator]> {
  let summary = "ends a kernel body";
  let description = [{
    Terminates the body of a `tile.kernel`.

    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, HasParent<"KernelOp">, ReturnLike, Terminator]> {
  let summary = "yields the launch grid from a kernel's grid region";
  let description = [{
    Terminates the `grid` region of a `tile.kernel` with one to three extents.

    ```mlir
    tile.yield %gx, %gy : i32, i32
    ```
  }];
  let arguments = (ins Variadic<Tile_Index>:$extents);
  let assemblyFormat = "$extents attr-dict `:` type($extents)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Program ids and tensor metadata
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "the index of the running program along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0
    ```
  }];
  let arguments = (ins Tile_Axis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "the extent of the launch grid along an axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins Tile_Axis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "an extent of a global tensor";
  let description = [{
    Reads extent `axis` of a tensor argument (its value at launch).

    ```mlir
    %n = tile.dim %x[1] : !tile.tensor<?x?xf32>
    %big = tile.dim %x[0] : !tile.tensor<?x?xf32> -> i64
    ```

    The result is i32, or i64 in the 64-bit size class (an extent of 2^31 or
    more; the kernel ABI then passes extents as 64-bit values).
  }];
  let arguments = (ins Tile_TensorType:$tensor, I64Attr:$axis);
  let results = (outs Tile_Index:$result);
  let assemblyFormat =
      "$tensor `[` $axis `]` attr-dict `:` type($tensor) custom<IndexResult>(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Tile creation and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_ArangeOp : Tile_Op<"arange", [Pure]> {
  let summary = "the 1-D tile [0, 1, ..., n-1]";
  let description = [{
    ```mlir
    %r = tile.arange : tensor<128xi32>
    ```
  }];
  let results = (outs 1DTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"element type matches the scalar", "result", "value",
                   "::llvm::cast<::mlir::ShapedType>($_self).getElementType()">]> {
  let summary = "a tile filled with one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %s : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_ElementType:$value);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "NumPy-style broadcast of a tile to a larger shape";
  let description = [{
    Aligns shapes at the right; each source extent must equal the result's or be
    1. Missing leading axes are added.

    ```mlir
    %b = tile.broadcast %r : tensor<128x1xf32> -> tensor<128x64xf32>
    %c = tile.broadcast %v : tensor<64xf32> -> tensor<128x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "inserts an axis of extent 1";
  let description = [{
    The result has rank one higher, with a unit extent at `axis`. A scalar
    source gives a 1-element 1-D tile.

    ```mlir
    %e = tile.expand_dims %v axis 1 : tensor<128xf32> -> tensor<128x1xf32>
    ```
  }];
  let arguments = (ins Tile_Value:$src, I64Attr:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src `axis` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "transposes a 2-D tile";
  let description = [{
    ```mlir
    %t = tile.transpose %k : tensor<64x128xbf16> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins 2DTensorOf<[Tile_ElementType]>:$src);
  let results = (outs 2DTensorOf<[Tile_ElementType]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "gives a tile another shape, its elements in row-major order";
  let description = [{
    The result holds the source's elements in the same row-major order; the
    element count and type stay.

    ```mlir
    %r = tile.reshape %x : tensor<16x64xf32> -> tensor<4x4x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_PermuteOp : Tile_Op<"permute", [Pure]> {
  let summary = "reorders the axes of a tile";
  let description = [{
    Axis `i` of the result is axis `dims[i]` of the source: element
    `r[i0, ..., in]` is `src` at index `dims[k]` = `ik`.

    ```mlir
    %p = tile.permute %x [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, DenseI64ArrayAttr:$dims);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src $dims attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertOp : Tile_Op<"convert", [Pure]> {
  let summary = "converts the element type of a tile or scalar";
  let description = [{
    Float to float rounds to nearest even; float to integer truncates toward
    zero (saturating, NaN to 0); integer to float rounds to nearest; integer
    widening sign-extends, narrowing truncates; bool converts to 0 or 1; to bool
    compares with zero.

    ```mlir
    %h = tile.convert %acc : tensor<128x128xf32> -> tensor<128x128xbf16>
    %f = tile.convert %n : i32 -> f32
    ```
  }];
  let arguments = (ins Tile_Value:$src);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
    SameOperandsAndResultElementType]> {
  let summary = "moves a tile to another distributed layout";
  let description = [{
    The same values, held by other threads: through shared memory in general,
    in registers when the layouts allow it. Inserted by tile-assign-layouts
    where an op needs its operand in a layout other than the one it has;
    chains and no-op conversions fold away.

    ```mlir
    %b = tile.convert_layout %a : tensor<128xf32, #tile.slice<{dim = 1, parent = #p}>>
                               -> tensor<128xf32, #tile.blocked<{...}>>
    ```
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"pad has the tensor's element type", "tensor", "pad",
                           "::llvm::cast<::mlir::tile::GlobalTensorType>($_self).getElementType()">]> {
  let summary = "loads a tile (or scalar) from a global tensor, padding outside it";
  let description = [{
    For a tensor of rank r and a result tile of rank k <= r, there are r
    coordinates: the first r-k index the leading axes element-wise, the last k
    are block coordinates whose element offset is `c * extent`. Elements outside
    the tensor read as `pad` (0 when absent), which has the element type.
    `extents`, when present, gives the block's extents where they are smaller
    than the tile's (a tile padded to powers of two by tile-pad-extents): they
    set the block origins, and tile elements past them read as `pad`.

    ```mlir
    %row = tile.load %x[%r, %c0] pad %ninf : !tile.tensor<?x?xf32> -> tensor<1024xf32>
    %blk = tile.load %a[%i, %k] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
    %big = tile.load %x[%b : i64] : !tile.tensor<?xf32> -> tensor<1024xf32>
    ```

    Coordinates are i32 or i64 (an i64 one is written with its type); the
    address arithmetic uses the widest of them and of the tensor's extents.
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_Index>:$coords,
                       Optional<Tile_ElementType>:$pad, OptionalAttr<DenseI64ArrayAttr>:$extents);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $tensor `[` custom<Coords>($coords, type($coords)) `]` (`pad` $pad^)? attr-dict `:`
    type($tensor) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "stores a tile (or scalar) into a global tensor, masked to its bounds";
  let description = [{
    Uses the coordinate convention of `tile.load` (`extents` included: tile
    elements past them are not written); elements that fall outside the tensor
    are not written. The value's element type is the tensor's.

    ```mlir
    tile.store %c[%i, %j], %t : !tile.tensor<?x?xbf16>, tensor<128x128xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_Index>:$coords, Tile_Value:$value,
                       OptionalAttr<DenseI64ArrayAttr>:$extents);
  let assemblyFormat = [{
    $tensor `[` custom<Coords>($coords, type($coords)) `]` `,` $value attr-dict `:` type($tensor)
    `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product with accumulation: acc + a x b";
  let description = [{
    `a` is [M, K], `b` is [K, N] of the same float type (f16, bf16, f32); `acc`
    and the result are [M, N] floats. Products accumulate in the accumulator's
    element type. The canonicalizer folds an addition to a dot of a zero
    accumulator into the dot (`x + dot(a, b, 0)` is `dot(a, b, x)`), so that
    the products accumulate in place (attention's `acc * alpha + dot(p, v)`).

    ```mlir
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins 2DTensorOf<[Tile_ElementType]>:$a, 2DTensorOf<[Tile_ElementType]>:$b,
                       2DTensorOf<[Tile_ElementType]>:$acc);
  let results = (outs 2DTensorOf<[Tile_ElementType]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduces a tile along one axis with sum, max or min";
  let description = [{
    The axis is removed from the shape; reducing a 1-D tile gives a scalar.
    `max` and `min` of floats propagate NaN.

    ```mlir
    %m = tile.reduce max %s axis 1 : tensor<128x64xf32> -> tensor<128xf32>
    %t = tile.reduce sum %v axis 0 : tensor<1024xf32> -> f32
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tile:$src, I64Attr:$axis);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$kind $src `axis` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "inclusive prefix sum, max or min of a tile along one axis";
  let description = [{
    Element `i` along `axis` of the result combines elements `0..i` of `src`
    along that axis, each line of the other axes on its own (cumsum, cummax,
    cummin). `max` and `min` of floats propagate NaN; a float sum may be
    associated in any order.

    ```mlir
    %c = tile.scan sum %x axis 1 : tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_Tile:$src, I64Attr:$axis);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$kind $src `axis` $axis attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "prints a tile or scalar from inside a kernel (debugging)";
  let description = [{
    Prints `prefix` followed by the value, once per program.

    ```mlir
    tile.print "row max: ", %m : f32
    ```
  }];
  let arguments = (ins StrAttr:$prefix, Tile_Value:$value);
  let assemblyFormat = "$prefix `,` $value attr-dict `:` type($value)";
}

include "TileSharedOps.td"
include "TileHopperOps.td"
include "TileSplitKOps.td"
include "TileIndexedOps.td"
include "TileScanOps.td"

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "checks a condition in every element, reporting a failure (debugging)";
  let description = [{
    Fails when any element of `cond` is false, naming `message` and the op's
    location. The interpreter stops with that error. GPU code checks it only
    in a kernel compiled for debugging, whose asserts carry the three program
    ids to report (`pids`, added with the kernel's `tile.debug`: the rest of
    the kernel runs on, and the runtime reports the first failure after the
    launch); code generation drops every other assert before its first pass.

    ```mlir
    tile.assert "row index in range", %ok : tensor<64xi1>
    tile.assert "row index in range", %ok pids %p0, %p1, %p2 : tensor<64xi1>
    ```
  }];
  let arguments = (ins StrAttr:$message, Tile_MaskValue:$cond, Variadic<I32>:$pids);
  let assemblyFormat = "$message `,` $cond (`pids` $pids^)? attr-dict `:` type($cond)";
  let hasVerifier = 1;
}

#endif // TILE_OPS_TD
