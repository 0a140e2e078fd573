//===- TileIndexedOps.td - element-addressed memory ops ---------*- tablegen -*-===//
//
// Loads, stores and atomics that address a global tensor element by element: one index
// value per tensor axis, all of the access's shape (the frontend broadcasts
// scalar and smaller indices), with an optional mask. Every element whose
// indices are inside the tensor and whose mask holds is read or written; any
// other element reads as `pad` and is not written, so an access is memory safe
// whatever its indices. The block-addressed `tile.load`/`tile.store` stay the
// form for whole tiles.
//
//===----------------------------------------------------------------------------===//

#ifndef TILE_INDEXED_OPS_TD
#define TILE_INDEXED_OPS_TD

// An index: a scalar or tile of i32 or i64.
def Tile_IndexValue : AnyTypeOf<[I32, I64, StaticShapeTensorOf<[I32, I64]>]>;
// A mask: a scalar or tile of i1.
def Tile_MaskValue : AnyTypeOf<[I1, StaticShapeTensorOf<[I1]>]>;

def Tile_GatherOp : Tile_Op<"gather", [MemoryEffects<[MemRead]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"pad has the tensor's element type", "tensor", "pad",
                           "::llvm::cast<::mlir::tile::GlobalTensorType>($_self).getElementType()">]> {
  let summary = "reads the elements of a global tensor at index tiles, masked and padded";
  let description = [{
    Element `e` of the result is `tensor[indices[0][e], ..., indices[r-1][e]]`
    when every index is in `[0, extent)` of its axis and `mask[e]` holds (or
    there is no mask), else `pad` (0 when absent). There is one index per
    tensor axis; every index and the mask have the result's shape (a scalar
    access has scalar indices). Indices are signed.

    ```mlir
    %v = tile.gather %x[%rows, %cols] mask %m : tensor<64x32xi1> pad %z
        : !tile.tensor<?x?xf32>[tensor<64x32xi32>, tensor<64x32xi32>] -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_IndexValue>:$indices,
                       Optional<Tile_MaskValue>:$mask, Optional<Tile_ElementType>:$pad);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` (`mask` $mask^ `:` type($mask))? (`pad` $pad^)? attr-dict `:`
    type($tensor) `[` type($indices) `]` `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [MemoryEffects<[MemWrite]>, AttrSizedOperandSegments]> {
  let summary = "writes the elements of a tile into a global tensor at index tiles, masked";
  let description = [{
    Writes `value[e]` to `tensor[indices[0][e], ..., indices[r-1][e]]` for
    every element `e` whose indices are in bounds and whose mask holds; other
    elements are not written. Indices, mask and value have one shape. Where
    two elements name one tensor element, one of their values is written
    (which one is unspecified).

    ```mlir
    tile.scatter %y[%i], %v mask %m : tensor<128xi1>
        : !tile.tensor<?xf32>[tensor<128xi32>], tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_IndexValue>:$indices,
                       Tile_Value:$value, Optional<Tile_MaskValue>:$mask);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `,` $value (`mask` $mask^ `:` type($mask))? attr-dict `:`
    type($tensor) `[` type($indices) `]` `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncGatherOp : Tile_Op<"async_gather", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite<Tile_SharedMemory>]>]> {
  let summary = "starts copying the elements of an element-addressed read into a shared slot";
  let description = [{
    Reads what `tile.gather %tensor[%indices] mask %mask` would read (elements
    out of bounds or masked off become 0) and writes it into `dst`
    asynchronously (cp.async), as `tile.async_copy` does for the block form:
    each thread copies the elements the indices' layout gives it, in runs of
    `vec` elements along the tensor's last axis, which the index math must
    prove contiguous, aligned and equally masked (AxisInfo.h). With `pred`
    false nothing is read and the slot is zero-filled. The data may be read
    only after a `tile.async_wait` that covers the copy's group.

    ```mlir
    tile.async_gather %k[%page, %slot, %h, %d], %buf mask %live : tensor<64x128xi1> if %p
        {vec = 8 : i32} : !tile.tensor<?x?x?x?xbf16>[tensor<64x128xi32, #blocked>, ...],
        !tile.memdesc<64x128xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_IndexValue>:$indices,
                       Tile_MemDescType:$dst, Optional<Tile_MaskValue>:$mask, Optional<I1>:$pred,
                       I32Attr:$vec);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `,` $dst (`mask` $mask^ `:` type($mask))? (`if` $pred^)? attr-dict `:`
    type($tensor) `[` type($indices) `]` `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "the update of an atomic read-modify-write", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"xchg", 3>]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [MemoryEffects<[MemRead, MemWrite]>,
    AttrSizedOperandSegments, AllTypesMatch<["value", "result"]>]> {
  let summary = "atomically updates elements of a global tensor at index tiles; yields the old values";
  let description = [{
    For every element `e` whose indices are in bounds and whose mask holds,
    atomically replaces `t = tensor[indices...[e]]` by `t + value[e]` (add),
    `max(t, value[e])`, `min(t, value[e])` or `value[e]` (xchg), and yields
    the `t` it replaced; other elements yield 0 and touch nothing. Each update
    is relaxed and device-wide: atomics of all programs on one element are
    totally ordered, but they order no other memory access. Indices, mask and
    value have one shape. Types: add on f16, bf16, f32, i32, i64; max and min
    on f32, i32, i64 (signed); xchg on any 16-, 32- or 64-bit element.

    ```mlir
    %old = tile.atomic_rmw add %hist[%bins], %ones mask %m : tensor<256xi1>
        : !tile.tensor<?xi32>[tensor<256xi32>], tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKind:$kind, Tile_TensorType:$tensor,
                       Variadic<Tile_IndexValue>:$indices, Tile_Value:$value,
                       Optional<Tile_MaskValue>:$mask);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $kind $tensor `[` $indices `]` `,` $value (`mask` $mask^ `:` type($mask))? attr-dict `:`
    type($tensor) `[` type($indices) `]` `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [MemoryEffects<[MemRead, MemWrite]>,
    AttrSizedOperandSegments, AllTypesMatch<["cmp", "value", "result"]>]> {
  let summary = "atomic compare-and-swap on elements of a global tensor; yields the old values";
  let description = [{
    For every element `e` whose indices are in bounds and whose mask holds,
    atomically reads `t = tensor[indices...[e]]`, writes `value[e]` there if
    `t` equals `cmp[e]` (bit for bit; floats compare their bits), and yields
    `t`; other elements yield 0. Relaxed and device-wide, as
    `tile.atomic_rmw`. Types: f32, i32, i64.

    ```mlir
    %old = tile.atomic_cas %lock[%c0], %zero, %one : !tile.tensor<?xi32>[i32], i32
    ```
  }];
  let arguments = (ins Tile_TensorType:$tensor, Variadic<Tile_IndexValue>:$indices,
                       Tile_Value:$cmp, Tile_Value:$value, Optional<Tile_MaskValue>:$mask);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $tensor `[` $indices `]` `,` $cmp `,` $value (`mask` $mask^ `:` type($mask))? attr-dict `:`
    type($tensor) `[` type($indices) `]` `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_MultipleOfOp : Tile_Op<"multiple_of", [Pure, Elementwise,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "asserts that every element of an integer value is a multiple of a divisor";
  let description = [{
    Returns its operand. The program promises that every element is a
    multiple of `divisor`, so that element accesses indexed by it (plus
    `arange`) can move several elements at once (lib/Analysis/AxisInfo). The
    interpreter checks the promise; a broken one is a fault at the op.

    ```mlir
    %s = tile.multiple_of %start {divisor = 8 : i64} : i32
    ```
  }];
  let arguments = (ins AnyTypeOf<[I32, I64, StaticShapeTensorOf<[I32, I64]>]>:$value,
                       ConfinedAttr<I64Attr, [IntPositive]>:$divisor);
  let results = (outs AnyTypeOf<[I32, I64, StaticShapeTensorOf<[I32, I64]>]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // TILE_INDEXED_OPS_TD
