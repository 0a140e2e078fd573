// RUN: tessera-opt %s -split-input-file -verify-diagnostics
// The verifiers reject what the language forbids.

tile.kernel @k(%x: !tile.tensor<?x?xf32>) grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  // expected-error @+1 {{'tile.load' op needs 2 coordinates for a rank-2 tensor, got 1}}
  %t = tile.load %x[%p] : !tile.tensor<?x?xf32> -> tensor<128xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  // expected-error @+1 {{'tile.load' op tile rank 2 exceeds the tensor's rank 1}}
  %t = tile.load %x[%p] : !tile.tensor<?xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xbf16>) grid {
^bb0(%a: !tile.tensor<?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  %v = arith.constant dense<0.0> : tensor<8xf32>
  // expected-error @+1 {{'tile.store' op tile element type 'f32' differs from the tensor's 'bf16'}}
  tile.store %x[%p], %v : !tile.tensor<?xbf16>, tensor<8xf32>
  tile.return
}

// -----

func.func @f(%a: tensor<16x8xf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.dot' op shapes do not chain: [16, 8] x [16, 8] -> [16, 8]}}
  %d = tile.dot %a, %b, %c : tensor<16x8xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x8xf16>, %b: tensor<8x4xbf16>, %c: tensor<16x4xf32>) {
  // expected-error @+1 {{'tile.dot' op operands have different element types: 'f16' and 'bf16'}}
  %d = tile.dot %a, %b, %c : tensor<16x8xf16>, tensor<8x4xbf16> -> tensor<16x4xf32>
  return
}

// -----

func.func @f(%a: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op result must be [16] of 'f32'}}
  %r = tile.reduce sum %a axis 1 : tensor<16x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @f(%a: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for rank 2}}
  %r = tile.reduce sum %a axis 2 : tensor<16x8xf32> -> tensor<16xf32>
  return
}

// -----

func.func @f(%a: tensor<16xi1>) {
  // expected-error @+1 {{'tile.reduce' op cannot sum booleans}}
  %r = tile.reduce sum %a axis 0 : tensor<16xi1> -> i1
  return
}

// -----

func.func @f(%a: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.scan' op axis 2 is out of range for rank 2}}
  %r = tile.scan sum %a axis 2 : tensor<16x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16xi1>) {
  // expected-error @+1 {{'tile.scan' op cannot scan booleans}}
  %r = tile.scan max %a axis 0 : tensor<16xi1>
  return
}

// -----

func.func @f(%a: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.associative_scan' op axis -1 is out of range for rank 2}}
  %r = tile.associative_scan %a axis -1 : tensor<16x8xf32> {
  ^bb0(%x: f32, %y: f32):
    tile.combiner_yield %x : f32
  }
  return
}

// -----

func.func @f(%a: tensor<16xi32>) {
  // expected-error @+1 {{'tile.associative_scan' op combiner must take two 'i32' arguments}}
  %r = tile.associative_scan %a axis 0 : tensor<16xi32> {
  ^bb0(%x: i32, %y: i64):
    tile.combiner_yield %x : i32
  }
  return
}

// -----

func.func @f(%a: tensor<16xf32>) {
  %r = tile.associative_scan %a axis 0 : tensor<16xf32> {
  ^bb0(%x: f32, %y: f32):
    %h = arith.truncf %x : f32 to f16
    // expected-error @+1 {{'tile.combiner_yield' op yields 'f16', the scan needs 'f32'}}
    tile.combiner_yield %h : f16
  }
  return
}

// -----

func.func @f(%a: tensor<16xf32>, %t: !tile.tensor<?xf32>) {
  %r = tile.associative_scan %a axis 0 : tensor<16xf32> {
  ^bb0(%x: f32, %y: f32):
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{'tile.load' op cannot be part of a scan's combiner: a combiner holds scalar ops without memory effects or regions}}
    %v = tile.load %t[%c0] : !tile.tensor<?xf32> -> f32
    tile.combiner_yield %v : f32
  }
  return
}

// -----

func.func @f(%a: tensor<16xf32>) {
  %r = tile.associative_scan %a axis 0 : tensor<16xf32> {
  ^bb0(%x: f32, %y: f32):
    // expected-error @+1 {{'tile.splat' op cannot be part of a scan's combiner: a combiner works on scalars, not tiles}}
    %s = tile.splat %x : tensor<4xf32>
    tile.combiner_yield %x : f32
  }
  return
}

// -----

func.func @f(%x: f32) {
  // expected-error @+1 {{'tile.combiner_yield' op expects parent op 'tile.associative_scan'}}
  tile.combiner_yield %x : f32
}

// -----

func.func @f(%a: tensor<16x4xf32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast [16, 4] to [16, 8]}}
  %r = tile.broadcast %a : tensor<16x4xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @f(%a: tensor<16xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result must be [16, 1] of 'f32'}}
  %r = tile.expand_dims %a axis 1 : tensor<16xf32> -> tensor<1x16xf32>
  return
}

// -----

func.func @f(%a: tensor<16x4xf32>) {
  // expected-error @+1 {{'tile.transpose' op result must be the transpose of 'tensor<16x4xf32>'}}
  %r = tile.transpose %a : tensor<16x4xf32> -> tensor<16x4xf32>
  return
}

// -----

func.func @f(%a: tensor<16xf32>) {
  // expected-error @+1 {{'tile.convert' op cannot change the shape}}
  %r = tile.convert %a : tensor<16xf32> -> tensor<8xbf16>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint}}
  %r = tile.program_id 3
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.arange' op result #0 must be 1D tensor of 32-bit signless integer values}}
  %r = tile.arange : tensor<4x4xi32>
  return
}

// -----

// expected-error @+1 {{'tile.kernel' op the grid region must end with tile.yield}}
tile.kernel @k() grid {
  tile.return
} {
  tile.return
}

// -----

tile.kernel @k() grid {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{'tile.yield' op needs one to three grid extents, got 4}}
  tile.yield %c, %c, %c, %c : i32, i32, i32, i32
} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op argument type 'f128' is neither a !tile.tensor nor a scalar element type}}
tile.kernel @k(%a: f128) grid {
^bb0(%b: f128):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  // expected-error @+1 {{'tile.dim' op axis 1 is out of range for a rank-1 tensor}}
  %d = tile.dim %a[1] : !tile.tensor<?xf32>
  tile.yield %d : i32
} {
  tile.return
}

// -----

// expected-error @+1 {{tensor extents must be positive or '?', got 0}}
func.func @f(%a: !tile.tensor<0xf32>)

// -----

func.func @f(%a: tensor<16x8xi32>, %b: tensor<8x4xi32>, %c: tensor<16x4xi32>) {
  // expected-error @+1 {{'tile.dot' op cannot accumulate 'i32' products in 'i32'}}
  %d = tile.dot %a, %b, %c : tensor<16x8xi32>, tensor<8x4xi32> -> tensor<16x4xi32>
  return
}

// -----

tile.kernel @bad_version() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{mma layout version 4 is not supported (2: mma.sync, 3: wgmma)}}
  %b = tile.splat %f : tensor<64x64xf32, #tile.mma<{version = 4, warpsPerCTA = [2, 2], instrShape = [64, 64]}>>
  tile.return
}

// -----

tile.kernel @bad_warpgroups() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{a version-3 mma layout needs whole warpgroups along M (warpsPerCTA[0] a multiple of 4)}}
  %b = tile.splat %f : tensor<64x64xf32, #tile.mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [64, 64]}>>
  tile.return
}

// -----

tile.kernel @bad_wgmma_shape() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{a version-3 mma layout has instrShape [64, N] with N a multiple of 8 up to 256}}
  %b = tile.splat %f : tensor<64x64xf32, #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 12]}>>
  tile.return
}

// -----

tile.kernel @bad_instr() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{a version-2 mma layout has instrShape [16, 8]}}
  %b = tile.splat %f : tensor<64x64xf32, #tile.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16]}>>
  tile.return
}

// -----

tile.kernel @k() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 16}}
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 16, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

tile.kernel @k() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{the contiguous extent (32 bytes) must be a multiple of the 64-byte swizzle}}
  %m = tile.local_alloc : () -> !tile.memdesc<64x16xbf16, #tile.shared<{swizzle = 64, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

tile.kernel @k() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %f = arith.constant 1.0 : f32
  %t = tile.splat %f : tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
  // expected-error @+1 {{'tile.local_alloc' op tile 'tensor<64x64xf32>' does not match the slot '!tile.memdesc<64x32xf32, #tile.shared<{swizzle = 0, vec = 4, order = [1, 0]}>>'}}
  %m = tile.local_alloc %t : (tensor<64x64xf32, #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>) -> !tile.memdesc<64x32xf32, #tile.shared<{swizzle = 0, vec = 4, order = [1, 0]}>>
  tile.return
}

// -----

tile.kernel @k() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %m = tile.local_alloc : () -> !tile.memdesc<64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.memdesc_trans' op the transposed view of '!tile.memdesc<64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>' is '!tile.memdesc<128x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>>'}}
  %t = tile.memdesc_trans %m : !tile.memdesc<64x128xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>> -> !tile.memdesc<128x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.async_copy' op copies 4, 8 or 16 bytes at a time, got 2}}
  tile.async_copy %x[%c0, %c0], %m {layout = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>, vec = 1 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

#gb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant dense<0> : tensor<64x64xi32, #gb>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.async_gather' op copies 4, 8 or 16 bytes at a time, got 2}}
  tile.async_gather %x[%i, %i], %m {vec = 1 : i32} : !tile.tensor<?x?xbf16>[tensor<64x64xi32, #gb>, tensor<64x64xi32, #gb>], !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

#gb = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant dense<0> : tensor<32x64xi32, #gb>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.async_gather' op index 0 has type 'tensor<32x64xi32, #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>', not the shape of the access 'tensor<64x64xbf16>'}}
  tile.async_gather %x[%i, %i], %m {vec = 8 : i32} : !tile.tensor<?x?xbf16>[tensor<32x64xi32, #gb>, tensor<32x64xi32, #gb>], !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

#sh = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#plain = #tile.shared<{swizzle = 0, vec = 8, order = [1, 0]}>
#m3 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @wgmma_unswizzled() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #plain>
  %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sh>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #m3>
  // expected-error @+1 {{reads swizzled operands only (wgmma matrix descriptors)}}
  %d = tile.warpgroup_dot %a, %b, %acc : !tile.memdesc<64x64xbf16, #plain>, !tile.memdesc<64x64xbf16, #sh> -> tensor<64x64xf32, #m3>
  tile.return
}

// -----

#sh2 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m2 = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @wgmma_v2_acc() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sh2>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #m2>
  // expected-error @+1 {{needs an accumulator with a version-3 mma layout}}
  %d = tile.warpgroup_dot %a, %a, %acc : !tile.memdesc<64x64xbf16, #sh2>, !tile.memdesc<64x64xbf16, #sh2> -> tensor<64x64xf32, #m2>
  tile.return
}

// -----

#sh3 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m33 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @wgmma_shapes() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %a = tile.local_alloc : () -> !tile.memdesc<64x128xbf16, #sh3>
  %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sh3>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #m33>
  // expected-error @+1 {{shapes do not compose}}
  %d = tile.warpgroup_dot %a, %b, %acc : !tile.memdesc<64x128xbf16, #sh3>, !tile.memdesc<64x64xbf16, #sh3> -> tensor<64x64xf32, #m33>
  tile.return
}

// -----

// A in registers must be in the A layout of the accumulator's own layout.
#sh4 = #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>
#m34 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#b4 = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
tile.kernel @wgmma_register_a_layout() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %a = arith.constant dense<1.0> : tensor<64x64xbf16, #b4>
  %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #sh4>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #m34>
  // expected-error @+1 {{takes A in registers only in the A layout of its accumulator's layout}}
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<64x64xbf16, #b4>, !tile.memdesc<64x64xbf16, #sh4> -> tensor<64x64xf32, #m34>
  tile.return
}

// -----

// A wait orders f32 tiles only (they pass through it in f32 registers).
#m35 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @wgmma_wait_orders_f32() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #m35>
  %i = arith.constant dense<1> : tensor<64x64xi32, #m35>
  // expected-error @+1 {{operand #1 must be variadic of statically shaped tensor of 32-bit float values}}
  %w:2 = tile.warpgroup_wait %acc, %i {pendings = 0 : i32} : tensor<64x64xf32, #m35>, tensor<64x64xi32, #m35> -> tensor<64x64xi32, #m35>
  tile.return
}

// -----

// ... and returns them unchanged.
#m36 = #tile.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
tile.kernel @wgmma_wait_returns_the_ordered() grid {
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #m36>
  %p = arith.constant dense<1.0> : tensor<64x64xf32, #m36>
  // expected-error @+1 {{'tile.warpgroup_wait' op returns the ordered values with their own types, not 'tensor<64x32xf32}}
  %w:2 = tile.warpgroup_wait %acc, %p {pendings = 0 : i32} : tensor<64x64xf32, #m36>, tensor<64x64xf32, #m36> -> tensor<64x32xf32, #m36>
  tile.return
}

// -----

// Multicast copies, cluster arrivals and cluster barriers need a kernel in
// clusters of their size.
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<2>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.tma_copy' op needs a kernel in clusters along axis 0 (tile.cluster_dims = [C, 1, 1])}}
  tile.tma_copy %x[%c0, %c0], %m, %bars[%c0] {map = 0 : i32, multicast = 2 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>, !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.cluster_dims = array<i64: 4, 1, 1>} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 4 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 8 : i32} : !tile.mbarrier<2>
  // expected-error @+1 {{'tile.mbarrier_arrive' op spans 2 programs in a kernel of clusters of 4}}
  tile.mbarrier_arrive %bars[%c0] {cluster = 2 : i32} : !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{'tile.cluster_barrier' op needs a kernel in clusters along axis 0}}
  tile.cluster_barrier
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.cluster_dims = array<i64: 2, 1, 1>} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 2 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 8 : i32} : !tile.mbarrier<2>
  // expected-error @+1 {{'tile.mbarrier_arrive' op attribute 'cluster' failed to satisfy constraint}}
  tile.mbarrier_arrive %bars[%c0] {cluster = 1 : i32} : !tile.mbarrier<2>
  tile.return
}

// -----

// A TMA copy names a tensor map the kernel lists, of the tensor it copies.
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<2>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.tma_copy' op names tensor map 0, which the kernel's tile.tensor_maps does not list}}
  tile.tma_copy %x[%c0, %c0], %m, %bars[%c0] {map = 0 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>, !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>, %y: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>, %b: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<2>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.tma_copy' op copies a tensor other than the one tensor map 0 describes}}
  tile.tma_copy %x[%c0, %c0], %m, %bars[%c0] {map = 0 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>, !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %bars = tile.mbarrier_alloc {arrivals = 1 : i32} : !tile.mbarrier<2>
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>>
  // expected-error @+1 {{'tile.tma_copy' op writes slots stored along the tensor's last axis}}
  tile.tma_copy %x[%c0, %c0], %m, %bars[%c0] {map = 0 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [0, 1]}>>, !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{'tile.mbarrier_alloc' op attribute 'arrivals' failed to satisfy constraint}}
  %bars = tile.mbarrier_alloc {arrivals = 0 : i32} : !tile.mbarrier<2>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{'tile.set_max_registers' op attribute 'count' failed to satisfy constraint}}
  tile.set_max_registers {count = 300 : i32, increase}
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xf32>) grid {
^bb0(%a: !tile.tensor<?x?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant dense<3> : tensor<16xi32>
  // expected-error @+1 {{'tile.gather' op needs 2 indices for a rank-2 tensor, got 1}}
  %v = tile.gather %x[%i] : !tile.tensor<?x?xf32>[tensor<16xi32>] -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant dense<3> : tensor<16xi32>
  %m = arith.constant dense<true> : tensor<8xi1>
  // expected-error @+1 {{'tile.gather' op mask has type 'tensor<8xi1>', not the shape of the access 'tensor<16xf32>'}}
  %v = tile.gather %x[%i] mask %m : tensor<8xi1> : !tile.tensor<?xf32>[tensor<16xi32>] -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant 3 : i32
  %v = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @+1 {{'tile.scatter' op index 0 has type 'i32', not the shape of the access 'tensor<16xf32>'}}
  tile.scatter %x[%i], %v : !tile.tensor<?xf32>[i32], tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant dense<3> : tensor<16xi32>
  %v = arith.constant dense<1.0> : tensor<16xf16>
  // expected-error @+1 {{'tile.scatter' op element type 'f16' differs from the tensor's 'f32'}}
  tile.scatter %x[%i], %v : !tile.tensor<?xf32>[tensor<16xi32>], tensor<16xf16>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xbf16>) grid {
^bb0(%a: !tile.tensor<?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant 3 : i32
  %v = arith.constant 1.0 : bf16
  // expected-error @+1 {{'tile.atomic_rmw' op atomic max does not support 'bf16'}}
  %o = tile.atomic_rmw max %x[%i], %v : !tile.tensor<?xbf16>[i32], bf16
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf16>) grid {
^bb0(%a: !tile.tensor<?xf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %i = arith.constant 3 : i32
  %v = arith.constant 1.0 : f16
  // expected-error @+1 {{'tile.atomic_cas' op atomic compare-and-swap does not support 'f16'}}
  %o = tile.atomic_cas %x[%i], %v, %v : !tile.tensor<?xf16>[i32], f16
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %p = tile.program_id 0
  // expected-error @+1 {{'tile.load' op extents [80] must be from 1 to the tile's [64]}}
  %t = tile.load %x[%p] {extents = array<i64: 80>} : !tile.tensor<?xf32> -> tensor<64xf32>
  tile.return
}

// -----

func.func @f(%a: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.reshape' op result must hold the 128 elements of 'tensor<16x8xf32>', as 'f32'}}
  %r = tile.reshape %a : tensor<16x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'tile.permute' op dims must be a permutation of 0..2}}
  %r = tile.permute %a [0, 0, 1] : tensor<2x4x8xf32> -> tensor<2x2x4xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'tile.permute' op result must be [8, 2, 4] of 'f32'}}
  %r = tile.permute %a [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
  return
}

// -----

func.func @f(%a: tensor<8xf32>, %p: i32) {
  // expected-error @+1 {{'tile.assert' op operand #0 must be 1-bit signless integer or statically shaped tensor of 1-bit signless integer values}}
  tile.assert "bools only", %a : tensor<8xf32>
  return
}

// -----

func.func @f(%a: tensor<8xi1>, %p: i32) {
  // expected-error @+1 {{'tile.assert' op takes no program ids or all three, got 2}}
  tile.assert "two ids", %a pids %p, %p : tensor<8xi1>
  return
}

// -----

tile.kernel @k(%x: !tile.tensor<?xf32>) grid {
^bb0(%a: !tile.tensor<?xf32>):
  %one = arith.constant 1 : i32
  tile.yield %one : i32
} {
  %c = arith.constant 0 : i16
  // expected-error @+1 {{'tile.load' op operand #1 must be variadic of 32- or 64-bit signless integer, but got 'i16'}}
  %t = tile.load %x[%c : i16] : !tile.tensor<?xf32> -> tensor<128xf32>
  tile.return
}

// -----

// A TMA store's slots have the value's rows and divide its columns; the slots
// divide the windows.
#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %m = tile.local_alloc : () -> !tile.memdesc<2x32x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  %v = arith.constant dense<1.0> : tensor<64x128xbf16, #mma>
  // expected-error @+1 {{'tile.tma_store' op needs slots of the value's rows and a whole number of its columns}}
  tile.tma_store %x[%c0, %c0], %v, %m {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x128xbf16, #mma>, !tile.memdesc<2x32x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.tensor_maps = [{arg = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %m = tile.local_alloc : () -> !tile.memdesc<2x64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  %v = arith.constant dense<1.0> : tensor<64x192xbf16, #mma>
  // expected-error @+1 {{'tile.tma_store' op stages 3 column windows in 2 slots: the slots must divide them}}
  tile.tma_store %x[%c0, %c0], %v, %m {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x192xbf16, #mma>, !tile.memdesc<2x64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

#mma = #tile.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %m = tile.local_alloc : () -> !tile.memdesc<1x64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  %v = arith.constant dense<1.0> : tensor<64x64xbf16, #mma>
  // expected-error @+1 {{'tile.tma_store' op names tensor map 0, which the kernel's tile.tensor_maps does not list}}
  tile.tma_store %x[%c0, %c0], %v, %m {map = 0 : i32} : !tile.tensor<?x?xbf16>, tensor<64x64xbf16, #mma>, !tile.memdesc<1x64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 8 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{'tile.turn_wait' op needs a warp-specialized kernel (tile.producer_warps)}}
  tile.turn_wait
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) attributes {tile.num_warps = 4 : i64, tile.producer_warps = 4 : i64} grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  // expected-error @+1 {{'tile.turn_pass' op needs two compute warpgroups or more, got 4 compute warps}}
  tile.turn_pass
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.async_copy' op copies runs of 8 elements, which must divide the last extent 36}}
  tile.async_copy %x[%c0, %c0], %m {extents = array<i64: 64, 36>, layout = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>, vec = 8 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}

// -----

tile.kernel @k(%x: !tile.tensor<?x?xbf16>) grid {
^bb0(%a: !tile.tensor<?x?xbf16>):
  %c = arith.constant 1 : i32
  tile.yield %c : i32
} {
  %c0 = arith.constant 0 : i32
  %m = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  // expected-error @+1 {{'tile.async_copy' op extents must be positive and at most the slot's}}
  tile.async_copy %x[%c0, %c0], %m {extents = array<i64: 64, 72>, layout = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>, vec = 8 : i32} : !tile.tensor<?x?xbf16>, !tile.memdesc<64x64xbf16, #tile.shared<{swizzle = 128, vec = 8, order = [1, 0]}>>
  tile.return
}
