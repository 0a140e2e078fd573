//===- Cubin.cpp - PTX -> cubin through ptxas ------------------*- C++ -*-===//
#include "lib/Support/Errors.h"
#include "lib/Target/PTX.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace tessera::target {
namespace {

/// Temporary files that are removed however the function returns.
struct TempFiles {
  ~TempFiles() {
    for (const std::string &p : paths)
      sys::fs::remove(p);
  }
  Expected<std::string> create(StringRef suffix) {
    SmallString<128> path;
    if (std::error_code ec = sys::fs::createTemporaryFile("tessera", suffix, path))
      return makeError("cannot create a temporary ." + suffix + " file: " + ec.message());
    paths.push_back(std::string(path));
    return paths.back();
  }
  SmallVector<std::string, 3> paths;
};

/// `sm_` followed by digits and an optional `a`/`f` suffix.
bool looksLikeArch(StringRef arch) {
  if (!arch.consume_front("sm_"))
    return false;
  if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f'))
    arch = arch.drop_back();
  return !arch.empty() && llvm::all_of(arch, isDigit);
}

} // namespace

Expected<std::string> findPtxas() {
  SmallVector<std::string, 2> candidates;
  if (std::optional<std::string> home = sys::Process::GetEnv("CUDA_HOME"); home && !home->empty()) {
    SmallString<256> p(*home);
    sys::path::append(p, "bin", "ptxas");
    candidates.push_back(std::string(p));
  }
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const std::string &c : candidates)
    if (sys::fs::can_execute(c))
      return c;
  if (ErrorOr<std::string> onPath = sys::findProgramByName("ptxas"))
    return *onPath;
  return makeError("ptxas not found (tried " + join(candidates, ", ") +
                   " and PATH); install the CUDA toolkit or set CUDA_HOME");
}

Expected<std::vector<char>> compileCubin(StringRef ptx, StringRef arch, std::string *log) {
  if (log)
    log->clear();
  if (!looksLikeArch(arch))
    return makeError("unknown NVPTX architecture '" + arch +
                     "' (expected a compute capability such as sm_80 or sm_90a)");
  if (ptx.empty())
    return makeError("no PTX to assemble");
  Expected<std::string> ptxas = findPtxas();
  if (!ptxas)
    return ptxas.takeError();

  TempFiles temps;
  Expected<std::string> in = temps.create("ptx");
  if (!in)
    return in.takeError();
  Expected<std::string> out = temps.create("cubin");
  if (!out)
    return out.takeError();
  Expected<std::string> logPath = temps.create("log");
  if (!logPath)
    return logPath.takeError();
  {
    std::error_code ec;
    raw_fd_ostream os(*in, ec, sys::fs::OF_None);
    if (ec)
      return makeError("cannot write " + *in + ": " + ec.message());
    os << ptx;
    os.close();
    if (os.has_error())
      return makeError("cannot write " + *in + ": " + os.error().message());
  }

  std::string archFlag = ("-arch=" + arch).str();
  SmallVector<StringRef, 8> args = {*ptxas, archFlag, "-v", "-o", *out, *in};
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(*logPath), StringRef(*logPath)};
  std::string execError;
  bool execFailed = false;
  // No timeout: LLVM implements one with alarm(), which is process-wide and would
  // break concurrent compiles (the autotuner's).
  int rc = sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects, /*SecondsToWait=*/0,
                               /*MemoryLimit=*/0, &execError, &execFailed);

  std::string output;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(*logPath))
    output = (*buf)->getBuffer().str();
  if (log)
    *log = output;

  std::string command = join(args, " ");
  if (execFailed)
    return makeError("cannot run `" + command + "`: " + execError);
  if (rc != 0) {
    std::string why = rc < 0 ? (execError.empty() ? std::string("crashed") : execError)
                             : "exit status " + std::to_string(rc);
    return makeError("`" + command + "` failed (" + why + ")" +
                     (output.empty() ? Twine() : Twine(":\n") + StringRef(output).rtrim()));
  }

  ErrorOr<std::unique_ptr<MemoryBuffer>> cubin = MemoryBuffer::getFile(*out, /*IsText=*/false);
  if (!cubin)
    return makeError("`" + command + "` wrote no readable cubin: " + cubin.getError().message());
  StringRef bytes = (*cubin)->getBuffer();
  if (bytes.empty())
    return makeError("`" + command + "` wrote an empty cubin");
  return std::vector<char>(bytes.begin(), bytes.end());
}

PtxasReport parsePtxasLog(StringRef log) {
  PtxasReport report;
  // The number before `marker` on `line`, if any ("... 32 registers").
  auto numberBefore = [](StringRef line, StringRef marker) -> std::optional<int> {
    size_t pos = line.find(marker);
    if (pos == StringRef::npos)
      return std::nullopt;
    StringRef head = line.take_front(pos).rtrim();
    size_t start = head.size();
    while (start > 0 && isDigit(head[start - 1]))
      --start;
    int v;
    if (start == head.size() || head.drop_front(start).getAsInteger(10, v))
      return std::nullopt;
    return v;
  };
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.contains("Used ")) {
      if (std::optional<int> r = numberBefore(line, " registers")) {
        report.registers = std::max(report.registers, *r);
        report.ok = true;
      }
    }
    if (std::optional<int> s = numberBefore(line, " bytes spill stores"))
      report.spillStores += *s;
    if (std::optional<int> l = numberBefore(line, " bytes spill loads"))
      report.spillLoads += *l;
  }
  return report;
}

} // namespace tessera::target
