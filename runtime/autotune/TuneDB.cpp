//===- TuneDB.cpp - the tuning database -----------------------------------===//
#include "runtime/autotune/TuneDB.h"
#include "lib/Support/Errors.h"

#include "runtime/jit/DiskCache.h"
#include "runtime/jit/Runtime.h"

#include "dialects/Tile/TileDialect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace tessera;
using namespace tessera::autotune;
namespace json = llvm::json;

namespace {

json::Object keyJSON(const TuneKey &k) {
  return json::Object{
      {"kernel", k.kernel}, {"ir", k.irHash},        {"specialization", k.specialization},
      {"bucket", k.bucket}, {"gpu", k.gpu},          {"arch", k.arch},
      {"driver", k.driver}, {"versions", k.versions}};
}

std::optional<TuneEntry> entryFrom(const json::Object &o) {
  const json::Object *k = o.getObject("key_parts");
  const json::Object *p = o.getObject("params");
  if (!k || !p)
    return std::nullopt;
  TuneEntry e;
  auto str = [&](const json::Object *obj, llvm::StringRef n) {
    auto s = obj->getString(n);
    return s ? s->str() : std::string();
  };
  e.key = TuneKey{str(k, "kernel"),
                  str(k, "ir"),
                  str(k, "specialization"),
                  str(k, "bucket"),
                  str(k, "gpu"),
                  str(k, "arch"),
                  (int)k->getInteger("driver").value_or(0),
                  str(k, "versions")};
  for (auto &[n, v] : *p)
    if (auto i = v.getAsInteger())
      e.params[n.str()] = *i;
  e.ms = o.getNumber("ms").value_or(0);
  e.metric = str(&o, "metric");
  e.date = str(&o, "date");
  return e;
}

json::Value entryJSON(const TuneEntry &e) {
  json::Object params;
  for (auto &[n, v] : e.params)
    params[n] = v;
  return json::Object{{"key", e.key.hash()},         {"key_parts", keyJSON(e.key)},
                      {"params", std::move(params)}, {"ms", e.ms},
                      {"metric", e.metric},          {"date", e.date}};
}

/// The file's entries; a missing file is empty, an unreadable one an error.
llvm::Expected<json::Array> readAll(const std::string &path) {
  if (!llvm::sys::fs::exists(path))
    return json::Array{};
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return makeError("cannot read the tuning database " + path + ": " + buf.getError().message());
  auto v = json::parse((*buf)->getBuffer());
  if (!v)
    return makeError("the tuning database " + path + " is not valid JSON (" +
                     llvm::toString(v.takeError()) + "); fix or remove it");
  json::Object *o = v->getAsObject();
  json::Array *a = o ? o->getArray("entries") : nullptr;
  if (!a)
    return makeError("the tuning database " + path + " has no \"entries\" array; fix or remove it");
  return std::move(*a);
}

/// An exclusive advisory lock on `<path>.lock` for the object's lifetime.
class FileLock {
public:
  explicit FileLock(const std::string &path) {
    fd_ = ::open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  bool ok() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

} // namespace

std::string TuneKey::hash() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << json::Value(keyJSON(*this));
  return jit::sha256Hex(s).substr(0, 32);
}

std::string TuneKey::bucketOf(const std::map<std::string, int64_t> &dims) {
  std::string s;
  for (auto &[n, v] : dims)
    s += (s.empty() ? "" : " ") + n + "=" +
         std::to_string(v <= 1 ? v : (int64_t)llvm::PowerOf2Ceil(v));
  return s.empty() ? "-" : s;
}

std::string TuneDB::defaultPath() {
  if (const char *p = getenv("TESSERA_TUNING_DB"); p && *p)
    return p;
  llvm::SmallString<256> p(jit::DiskCache::defaultDirectory());
  llvm::sys::path::append(p, "tuning.json");
  return std::string(p);
}

llvm::Expected<std::optional<TuneEntry>> TuneDB::lookup(const TuneKey &key) const {
  auto all = readAll(path_);
  if (!all)
    return all.takeError();
  std::string h = key.hash();
  for (const json::Value &v : *all)
    if (const json::Object *o = v.getAsObject())
      if (o->getString("key") == llvm::StringRef(h))
        if (auto e = entryFrom(*o))
          return e;
  return std::nullopt;
}

llvm::Expected<std::vector<TuneEntry>> TuneDB::entries() const {
  auto all = readAll(path_);
  if (!all)
    return all.takeError();
  std::vector<TuneEntry> out;
  for (const json::Value &v : *all)
    if (const json::Object *o = v.getAsObject())
      if (auto e = entryFrom(*o))
        out.push_back(std::move(*e));
  return out;
}

llvm::Error TuneDB::store(const TuneEntry &e) const {
  llvm::SmallString<256> dir(path_);
  llvm::sys::path::remove_filename(dir);
  if (!dir.empty())
    (void)llvm::sys::fs::create_directories(dir);
  FileLock lock(path_);
  if (!lock.ok())
    return makeError("cannot lock the tuning database " + path_ + ".lock");
  auto all = readAll(path_);
  if (!all)
    return all.takeError();
  std::string h = e.key.hash();
  json::Array merged;
  for (json::Value &v : *all)
    if (const json::Object *o = v.getAsObject(); !o || o->getString("key") != llvm::StringRef(h))
      merged.push_back(std::move(v));
  merged.push_back(entryJSON(e));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}",
                      json::Value(json::Object{{"version", 1}, {"entries", std::move(merged)}}))
     << "\n";
  llvm::SmallString<256> tmp;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(path_ + ".tmp-%%%%%%", fd, tmp))
    return makeError("cannot write next to the tuning database " + path_ + ": " + ec.message());
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << text;
    out.close();
    if (out.has_error()) {
      (void)llvm::sys::fs::remove(tmp);
      return makeError("cannot write " + tmp + ": " + out.error().message());
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path_)) {
    (void)llvm::sys::fs::remove(tmp);
    return makeError("cannot replace the tuning database " + path_ + ": " + ec.message());
  }
  return llvm::Error::success();
}

llvm::Expected<TuneKey> tessera::autotune::tuneKeyFor(jit::Compiler &compiler,
                                                      const jit::Program &program,
                                                      const jit::CompileRequest &req,
                                                      const std::string &gpuName) {
  auto sig = program.kernel(req.kernel);
  if (!sig)
    return sig.takeError();
  jit::CompileRequest cr = req;
  cr.kernel = sig->name;
  cr.params.clear(); // the key is the default configuration's
  // One frontend run gives both the specialization and the IR hash (the kernel
  // printed without locations and without tile.params).
  std::string spec, text;
  llvm::Error e = compiler.inspect(program, cr, [&](mlir::tile::KernelOp k) {
    llvm::raw_string_ostream os(spec);
    if (mlir::Attribute a = k->getAttr("tile.specialized_dims"))
      a.print(os);
    else
      os << "-";
    os << (req.aligned ? " aligned" : " unaligned");
    k->removeAttr("tile.params");
    llvm::raw_string_ostream ir(text);
    k->print(ir, mlir::OpPrintingFlags().elideLargeElementsAttrs(1 << 20));
    return llvm::Error::success();
  });
  if (e)
    return std::move(e);
  TuneKey key;
  key.kernel = sig->name;
  key.irHash = jit::sha256Hex(text);
  key.specialization = spec;
  key.bucket = TuneKey::bucketOf(req.dims);
  key.gpu = gpuName;
  key.arch = req.arch;
  key.driver = req.driverVersion;
  key.versions = jit::compilerVersion();
  // On a GPU, what assembled the timed cubins too: the best parameters for one
  // assembler's code need not be the best for another's.
  if (req.driverVersion) {
    if (auto a = jit::cubinAssembler())
      key.versions += " (" + a->name + ")";
    else
      llvm::consumeError(a.takeError());
  }
  return key;
}
