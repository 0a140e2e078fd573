"""The Python package without a GPU and without NumPy: load, signatures,
compile to PTX, interpret on buffers, and every bad call an exception (never a
crash). Run: python3 -m unittest discover -s python/tests (ctest does)."""

import array
import ctypes
import gc
import itertools
import math
import os
import random
import sys
import threading
import unittest
import weakref

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tessera  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = os.path.join(ROOT, "examples")


def floats(values, shape):
    """A writable row-major f32 buffer of `shape` (a memoryview, no NumPy)."""
    return memoryview(array.array("f", values)).cast("B").cast("f", shape)


class FakeCuda:
    """A device tensor as libraries other than torch describe one."""

    def __init__(self, typestr, shape):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (1 << 20, False),
            "version": 3,
            "strides": None,
        }


class DLPackFloats:
    """A DLPack producer of a host f32 array (what JAX or CuPy hand over),
    made with ctypes: a DLManagedTensor in a "dltensor" capsule."""

    def __init__(self, values, shape, device_type=1):
        from tessera._tensors import _DLTensor

        class Managed(ctypes.Structure):
            _fields_ = [("t", _DLTensor), ("ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]

        self.data = (ctypes.c_float * len(values))(*values)
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.managed = Managed()
        t = self.managed.t
        t.data = ctypes.cast(self.data, ctypes.c_void_p)
        t.device.device_type, t.device.device_id = device_type, 0
        t.ndim = len(shape)
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 2, 32, 1
        t.shape = self.shape
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self._new = new
        self.streams = []  # what each __dlpack__ call was given

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self._new(ctypes.addressof(self.managed), b"dltensor", None)


class Loading(unittest.TestCase):
    def test_version_and_kernels(self):
        self.assertTrue(tessera.version())
        p = tessera.load(os.path.join(EXAMPLES, "softmax.tile"))
        self.assertEqual(p.kernels, ["softmax"])
        k = p.softmax
        self.assertIs(k, p.kernel("softmax"))
        self.assertEqual([q.name for q in k.params], ["x", "y"])
        self.assertEqual(k.params[0].dims, ["M", "N"])
        self.assertTrue(k.params[1].written)
        self.assertIn("softmax(x, y)", repr(k))

    def test_located_errors(self):
        with self.assertRaises(tessera.ProgramError) as e:
            tessera.load_string(
                "kernel k(x: tensor<f32, [N]>) grid [1] {\n  store(x, [0] 1.0);\n}\n", "bad.tile"
            )
        self.assertIn("bad.tile:2:", str(e.exception))
        # Names are resolved when a kernel is compiled: located as well.
        k = tessera.load_string(
            "kernel k(x: tensor<f32, [N]>) grid [1] {\n  store(x, [0], y);\n}\n", "late.tile"
        ).k
        with self.assertRaises(tessera.CompileError) as e:
            k.compile(FakeCuda("<f4", (8,)))
        self.assertIn("late.tile:2:", str(e.exception))
        with self.assertRaises(tessera.ProgramError) as e:
            tessera.load("/nonexistent/k.tile")
        self.assertIn("/nonexistent/k.tile", str(e.exception))
        p = tessera.load(os.path.join(EXAMPLES, "softmax.tile"))
        with self.assertRaises(AttributeError) as e:
            p.softmx
        self.assertIn("softmax", str(e.exception))


class Compiling(unittest.TestCase):
    def test_ptx_for_two_architectures(self):
        k = tessera.load(os.path.join(EXAMPLES, "softmax.tile")).softmax
        x, y = floats([0.0] * 64 * 1000, (64, 1000)), floats([0.0] * 64 * 1000, (64, 1000))
        c = k.compile(x, y)
        self.assertIn(".target sm_90a", c.ptx)
        self.assertIn(c.entry, c.ptx)
        self.assertEqual(c.grid, (64, 1, 1))
        c80 = k.compile(x, y, arch="sm_80", num_warps=8)
        self.assertIn(".target sm_80", c80.ptx)
        self.assertEqual(c80.threads, 256)

    def test_device_tensors_compile_without_a_gpu(self):
        k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        t = [FakeCuda("<f4", (5000,)) for _ in range(3)]
        self.assertIn(".entry", k.compile(*t, BLOCK=512).ptx)

    def test_from_two_threads(self):
        k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        results, errors = [], []

        def work(n):
            try:
                t = [FakeCuda("<f4", (n,)) for _ in range(3)]
                results.append(k.compile(*t, BLOCK=256 * (1 + n % 2)).ptx)
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(1000 + i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 4)


class Interpreting(unittest.TestCase):
    def test_vector_add_in_place(self):
        k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        n = 3000
        rng = random.Random(7)
        xs = [rng.uniform(-4, 4) for _ in range(n)]
        ys = [rng.uniform(-4, 4) for _ in range(n)]
        x, y, z = floats(xs, (n,)), floats(ys, (n,)), floats([float("nan")] * n, (n,))
        k.interpret(x, y, z, BLOCK=512)
        # The f32 sum: exact in double from the f32 inputs, then rounded once.
        want = array.array("f", (x[i] + y[i] for i in range(n)))
        self.assertEqual(list(z), list(want))

    def test_dlpack_producers(self):
        k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        n = 1000
        x = DLPackFloats([float(i) for i in range(n)], (n,))
        y = DLPackFloats([0.5] * n, (n,))
        z = DLPackFloats([0.0] * n, (n,))
        k.interpret(x, y, z)
        self.assertEqual(list(z.data), [i + 0.5 for i in range(n)])
        cuda = DLPackFloats([0.0] * n, (n,), device_type=2)
        with self.assertRaisesRegex(ValueError, "the interpreter takes host tensors"):
            k.interpret(cuda, y, z)
        self.assertIn(".entry", k.compile(cuda, cuda, cuda).ptx)
        self.assertEqual(cuda.streams, [None, None, None, None])  # no launch: no stream
        with self.assertRaises(tessera.TesseraError):  # no GPU here, or a fake pointer there
            k(cuda, cuda, cuda, stream=0x77)
        self.assertEqual(cuda.streams[-3:], [0x77] * 3)  # ordered before the launch's stream

    def test_softmax_rows(self):
        k = tessera.load(os.path.join(EXAMPLES, "softmax.tile")).softmax
        m, n = 3, 100
        rng = random.Random(3)
        xs = [rng.uniform(-5, 5) for _ in range(m * n)]
        x, y = floats(xs, (m, n)), floats([0.0] * m * n, (m, n))
        k.interpret(x, y)
        for r in range(m):
            row = xs[r * n : (r + 1) * n]
            top = max(row)
            total = sum(math.exp(v - top) for v in row)
            for j in range(n):
                self.assertAlmostEqual(y[r, j], math.exp(row[j] - top) / total, places=6)


class BadCalls(unittest.TestCase):
    def setUp(self):
        self.k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        self.t = [floats([1.0] * 100, (100,)) for _ in range(3)]

    def test_argument_count_and_kinds(self):
        with self.assertRaisesRegex(TypeError, "takes 3 arguments"):
            self.k.interpret(*self.t[:2])
        with self.assertRaisesRegex(TypeError, "'y' is a tensor"):
            self.k.interpret(self.t[0], 2.0, self.t[2])
        with self.assertRaisesRegex(TypeError, "expected a tensor"):
            self.k.interpret(self.t[0], "y", self.t[2])

    def test_dtype_rank_and_dims(self):
        doubles = memoryview(array.array("d", [1.0] * 100))
        with self.assertRaisesRegex(TypeError, "'x' must be f32, got f64"):
            self.k.interpret(doubles, self.t[1], self.t[2])
        square = floats([1.0] * 100, (10, 10))
        with self.assertRaisesRegex(ValueError, "rank 1"):
            self.k.interpret(square, self.t[1], self.t[2])
        short = floats([1.0] * 99, (99,))
        with self.assertRaisesRegex(ValueError, "dim N is 100"):
            self.k.interpret(self.t[0], short, self.t[2])

    def test_devices_and_layouts(self):
        with self.assertRaisesRegex(ValueError, "a launch takes CUDA tensors"):
            self.k(*self.t)
        cuda = [FakeCuda("<f4", (100,)) for _ in range(3)]
        with self.assertRaisesRegex(ValueError, "the interpreter takes host tensors"):
            self.k.interpret(*cuda)
        with self.assertRaisesRegex(ValueError, "read-only"):
            self.k.interpret(memoryview(bytes(400)).cast("f"), self.t[1], self.t[2])
        strided = FakeCuda("<f4", (100, 2))
        strided.__cuda_array_interface__["strides"] = (4, 400)
        k2 = tessera.load(os.path.join(EXAMPLES, "softmax.tile")).softmax
        with self.assertRaisesRegex(ValueError, "contiguous along its last axis"):
            k2.compile(strided, FakeCuda("<f4", (100, 2)))

    def test_parameters(self):
        with self.assertRaisesRegex(TypeError, "must be an integer"):
            self.k.interpret(*self.t, BLOCK=512.0)
        with self.assertRaises(tessera.CompileError) as e:
            self.k.compile(*[FakeCuda("<f4", (100,)) for _ in range(3)], BLOCKS=512)
        self.assertIn("no tunable parameter 'BLOCKS'", str(e.exception))
        with self.assertRaises(tessera.CompileError):
            self.k.compile(*[FakeCuda("<f4", (100,)) for _ in range(3)], arch="sm_70")

    def test_no_gpu_is_an_exception(self):
        cuda = [FakeCuda("<f4", (100,)) for _ in range(3)]
        try:
            self.k.tune(*cuda, budget=1)
        except tessera.NoGPUError as e:
            self.assertTrue(str(e))
        except tessera.TesseraError:
            pass  # a GPU machine: see below
        try:
            self.k(*cuda)
        except tessera.NoGPUError as e:
            self.assertTrue(str(e))
        except tessera.TesseraError:
            pass  # a GPU machine: the fake pointer fails in the driver instead


if __name__ == "__main__":
    unittest.main()


class LaunchPlans(unittest.TestCase):
    """The launch fast path, with a stand-in for torch and for the C launch:
    a repeated launch signature reuses its checked arguments with the new
    data pointers and scalars; another signature is checked afresh."""

    def setUp(self):
        import types

        torch = types.ModuleType("torch")

        class Device:
            def __init__(self, index):
                self.type, self.index = "cuda", index

            def __eq__(self, o):
                return (self.type, self.index) == (o.type, o.index)

            def __hash__(self):
                return hash((self.type, self.index))

        class DType:  # one object per dtype, as torch's
            made = {}

            def __new__(cls, name):
                if name not in cls.made:
                    cls.made[name] = object.__new__(cls)
                    cls.made[name].name = name
                return cls.made[name]

            def __str__(self):
                return "torch." + self.name

        class Tensor:
            def __init__(self, ptr, shape, dtype="float32", index=0):
                self.ptr, self.shape, self.dtype = ptr, tuple(shape), DType(dtype)
                self.device = Device(index)

            def data_ptr(self):
                return self.ptr

            def get_device(self):
                return self.device.index

            def stride(self):
                out, step = [], 1
                for e in reversed(self.shape):
                    out.append(step)
                    step *= e
                return tuple(reversed(out))

        Tensor.__module__ = "torch"
        torch.Tensor = Tensor
        torch.cuda = types.SimpleNamespace(
            current_stream=lambda i: types.SimpleNamespace(cuda_stream=0x5000 + i)
        )
        self.Tensor = Tensor
        self.saved = sys.modules.get("torch")
        sys.modules["torch"] = torch
        self.launches = []
        self.prepared = {}  # handle: the C plan it was prepared from

        handles = itertools.count(0x100)

        def prepare(plan_ref, out_ref):
            # A weak reference: the package, not this stub, keeps the C plan alive.
            handle = next(handles)
            self.prepared[handle] = weakref.ref(plan_ref._obj)
            out_ref._obj.value = handle
            return 0

        def launch(handle, stream):
            plan = self.prepared[handle]() if isinstance(handle, int) else handle
            self.assertIsNotNone(plan, "a prepared launch outlived its C plan")
            args = plan.args
            self.launches.append(
                ([args[i].data or args[i].scalar for i in range(plan.num_args)], stream)
            )
            return 0

        lib = tessera._lib.lib
        self.real = (lib.tessera_launch_prepare, lib.tessera_launch_prepared,
                     lib.tessera_prepared_launch_destroy, lib.tessera_launch_planned,
                     tessera._runtime)
        lib.tessera_launch_prepare = prepare
        lib.tessera_launch_prepared = launch
        lib.tessera_launch_planned = launch  # unprepared: arguments checked afresh
        lib.tessera_prepared_launch_destroy = lambda handle: self.prepared.pop(handle)
        tessera._runtime = lambda index: ctypes.c_void_p(1)

    def tearDown(self):
        # The test's plans go before the real library's functions come back:
        # none of the stubs' handles reaches the real destroy.
        gc.collect()
        leaked = dict(self.prepared)
        lib = tessera._lib.lib
        (lib.tessera_launch_prepare, lib.tessera_launch_prepared,
         lib.tessera_prepared_launch_destroy, lib.tessera_launch_planned,
         tessera._runtime) = self.real
        if self.saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = self.saved
        self.assertEqual(leaked, {}, "prepared plans outlived their test")

    def test_patched_pointers_and_fresh_checks(self):
        k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        T = self.Tensor
        k(T(0x1000, [100]), T(0x2000, [100]), T(0x3000, [100]))
        k(T(0x4000, [100]), T(0x5000, [100]), T(0x6000, [100]))
        self.assertEqual(len(k._local.plans), 1)
        k(T(0x7000, [200]), T(0x8000, [200]), T(0x9000, [200]), BLOCK=256)
        self.assertEqual(len(k._local.plans), 2)
        self.assertEqual(
            [l[0] for l in self.launches],
            [[0x1000, 0x2000, 0x3000], [0x4000, 0x5000, 0x6000], [0x7000, 0x8000, 0x9000]],
        )
        self.assertEqual(self.launches[0][1], 0x5000)  # torch's current stream of cuda:0
        # One prepared C plan per signature, destroyed with the plans.
        self.assertEqual(len(self.prepared), 2)
        k._local = threading.local()
        gc.collect()
        self.assertEqual(self.prepared, {})
        with self.assertRaisesRegex(TypeError, "'y' must be f32, got f16"):
            k(T(0x1000, [100]), T(0x2000, [100], "float16"), T(0x3000, [100]))
        with self.assertRaisesRegex(ValueError, "dim N is 100"):
            k(T(0x1000, [100]), T(0x2000, [101]), T(0x3000, [100]))
        with self.assertRaisesRegex(ValueError, "on cuda:1, the others on cuda:0"):
            k(T(0x1000, [100]), T(0x2000, [100], index=1), T(0x3000, [100]))

    def test_other_tensors_are_checked_every_call(self):
        # Objects that are not torch tensors have no launch key: each call is
        # checked afresh and launched through the unprepared plan.
        class Cai:
            def __init__(self, ptr, n):
                self.__cuda_array_interface__ = {
                    "shape": (n,), "typestr": "<f4", "data": (ptr, False), "version": 3,
                }

        k = tessera.load(os.path.join(EXAMPLES, "vector_add.tile")).vector_add
        k(Cai(0x1000, 100), Cai(0x2000, 100), Cai(0x3000, 100))
        k(Cai(0x4000, 100), Cai(0x5000, 100), Cai(0x6000, 100))
        self.assertEqual(getattr(k._local, "plans", {}), {})
        self.assertEqual(self.prepared, {})
        self.assertEqual(
            [l[0] for l in self.launches], [[0x1000, 0x2000, 0x3000], [0x4000, 0x5000, 0x6000]]
        )

    def test_patched_scalars(self):
        # A cached launch patches scalars (through its view of the C array) as
        # it patches data pointers: the second call's scale reaches the launch.
        k = tessera.load(os.path.join(EXAMPLES, "attention.tile")).attention
        T = self.Tensor
        shape = [1, 2, 64, 64]
        k(T(0x1000, shape, "bfloat16"), T(0x2000, shape, "bfloat16"),
          T(0x3000, shape, "bfloat16"), T(0x4000, shape, "bfloat16"), 0.5)
        k(T(0x5000, shape, "bfloat16"), T(0x6000, shape, "bfloat16"),
          T(0x7000, shape, "bfloat16"), T(0x8000, shape, "bfloat16"), 0.25)
        self.assertEqual(len(k._local.plans), 1)
        self.assertEqual(
            [l[0] for l in self.launches],
            [[0x1000, 0x2000, 0x3000, 0x4000, 0.5], [0x5000, 0x6000, 0x7000, 0x8000, 0.25]],
        )

    def test_python_side_of_a_cached_launch(self):
        import time

        k = tessera.load(os.path.join(EXAMPLES, "softmax.tile")).softmax
        x, y = self.Tensor(0x1000, [4096, 1000]), self.Tensor(0x2000, [4096, 1000])
        for _ in range(200):
            k(x, y)
        n = 5000
        start = time.perf_counter()
        for _ in range(n):
            k(x, y)
        us = (time.perf_counter() - start) / n * 1e6
        print("\nPython side of a cached launch (the C launch stubbed): %.2f us" % us)
        self.assertEqual(len(k._local.plans), 1)
