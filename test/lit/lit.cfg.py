# lit configuration of Tessera's FileCheck tests. ctest (test/CMakeLists.txt) runs
# one suite directory at a time and passes the build's locations in the
# environment: TESSERA_BIN_DIR (tessera, tessera-opt), LLVM_TOOLS_DIR (FileCheck,
# not) and TESSERA_LIT_EXEC_ROOT (scratch space for %t).
import os
import lit.formats

config.name = "Tessera"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir", ".tile", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get("TESSERA_LIT_EXEC_ROOT", "/tmp/tessera-lit")
config.excludes = ["lit.cfg.py", "Inputs"]
source_dir = os.path.dirname(os.path.dirname(config.test_source_root))
config.environment["PATH"] = os.pathsep.join(
    [os.environ.get("TESSERA_BIN_DIR", os.path.join(source_dir, "build", "bin")), os.environ.get("LLVM_TOOLS_DIR", "/usr/lib/llvm-22/bin"),
     os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin"), os.environ.get("PATH", "")])
config.substitutions.append(("%examples", os.path.join(source_dir, "examples")))
config.substitutions.append(("%programs", os.path.join(source_dir, "test", "programs")))
