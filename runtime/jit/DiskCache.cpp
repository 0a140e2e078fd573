//===- DiskCache.cpp - compiled kernels on disk -----------------*- C++ -*-===//
#include "runtime/jit/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tessera::jit;

std::string tessera::jit::sha256Hex(llvm::StringRef data) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(data));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string DiskCache::defaultDirectory() {
  if (const char *d = getenv("TESSERA_CACHE_DIR"); d && *d)
    return d;
  if (const char *x = getenv("XDG_CACHE_HOME"); x && *x)
    return (llvm::Twine(x) + "/tessera").str();
  if (const char *h = getenv("HOME"); h && *h)
    return (llvm::Twine(h) + "/.cache/tessera").str();
  return "/tmp/tessera-cache";
}

DiskCache::DiskCache(std::string dir) : dir_(std::move(dir)) {
  (void)llvm::sys::fs::create_directories(dir_);
}

std::string DiskCache::pathOf(llvm::StringRef key) const {
  llvm::SmallString<256> p(dir_);
  llvm::sys::path::append(p, key + ".tkc");
  return std::string(p);
}

// Entry format: a text header of `name value` lines, a blank line, the PTX.
// Version 2 added the `tmap <param> <swizzle> <box0>x<box1>...` lines.
static constexpr llvm::StringLiteral kMagic = "tessera-kernel-cache 2";

std::optional<CacheEntry> DiskCache::load(llvm::StringRef key) const {
  std::string path = pathOf(key);
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return std::nullopt;
  llvm::StringRef all = (*buf)->getBuffer();
  auto corrupt = [&]() -> std::optional<CacheEntry> {
    ++corrupt_;
    (void)llvm::sys::fs::remove(path);
    return std::nullopt;
  };
  size_t split = all.find("\n\n");
  if (!all.starts_with(kMagic) || split == llvm::StringRef::npos)
    return corrupt();
  llvm::StringRef header = all.take_front(split), ptx = all.drop_front(split + 2);
  CacheEntry e;
  std::string fileKey, sha;
  size_t bytes = ~size_t(0);
  llvm::SmallVector<llvm::StringRef> lines;
  header.split(lines, '\n');
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front()) {
    auto [name, value] = line.split(' ');
    if (name == "key")
      fileKey = value.str();
    else if (name == "entry")
      e.entry = value.str();
    else if (name == "sha256")
      sha = value.str();
    else if (name == "warps" && value.getAsInteger(10, e.numWarps))
      return corrupt();
    else if (name == "shared" && value.getAsInteger(10, e.sharedBytes))
      return corrupt();
    else if (name == "bytes" && value.getAsInteger(10, bytes))
      return corrupt();
    else if (name == "splitk") {
      auto [splits, slot] = value.split(' ');
      if (splits.getAsInteger(10, e.splitK.splits) || slot.getAsInteger(10, e.splitK.slotBytes))
        return corrupt();
    } else if (name == "tmap") {
      llvm::SmallVector<llvm::StringRef> f, box;
      value.split(f, ' ');
      TensorMapUse m;
      if (f.size() != 3 || f[0].getAsInteger(10, m.param) || f[1].getAsInteger(10, m.swizzle))
        return corrupt();
      f[2].split(box, 'x');
      for (llvm::StringRef b : box)
        if (b.getAsInteger(10, m.box.emplace_back()))
          return corrupt();
      e.tensorMaps.push_back(std::move(m));
    }
  }
  if (fileKey != key || e.entry.empty() || bytes != ptx.size() || sha != sha256Hex(ptx))
    return corrupt();
  e.ptx = ptx.str();
  return e;
}

llvm::Error DiskCache::writeAtomically(llvm::StringRef key, const std::string &path,
                                       llvm::function_ref<void(llvm::raw_ostream &)> write) const {
  if (auto ec = llvm::sys::fs::create_directories(dir_))
    return llvm::createStringError(ec,
                                   "cannot create the kernel cache " + dir_ + ": " + ec.message());
  llvm::SmallString<256> tmp;
  int fd;
  llvm::SmallString<256> model(dir_);
  llvm::sys::path::append(model, key + "-%%%%%%%%.tmp");
  if (auto ec = llvm::sys::fs::createUniqueFile(model, fd, tmp))
    return llvm::createStringError(ec, "cannot write to the kernel cache " + dir_ + ": " +
                                           ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    write(os);
    os.close();
    if (os.has_error()) {
      (void)llvm::sys::fs::remove(tmp);
      return llvm::createStringError(os.error(),
                                     "cannot write " + tmp + ": " + os.error().message());
    }
  }
  if (auto ec = llvm::sys::fs::rename(tmp, path)) {
    (void)llvm::sys::fs::remove(tmp);
    return llvm::createStringError(ec, "cannot rename " + tmp + ": " + ec.message());
  }
  return llvm::Error::success();
}

llvm::Error DiskCache::store(llvm::StringRef key, const CacheEntry &e) const {
  return writeAtomically(key, pathOf(key), [&](llvm::raw_ostream &os) {
    os << kMagic << "\nkey " << key << "\nentry " << e.entry << "\nwarps " << e.numWarps
       << "\nshared " << e.sharedBytes;
    if (e.splitK.splits > 1)
      os << "\nsplitk " << e.splitK.splits << ' ' << e.splitK.slotBytes;
    for (const TensorMapUse &m : e.tensorMaps) {
      os << "\ntmap " << m.param << ' ' << m.swizzle << ' ';
      llvm::interleave(m.box, os, "x");
    }
    os << "\nbytes " << e.ptx.size() << "\nsha256 " << sha256Hex(e.ptx) << "\n\n" << e.ptx;
  });
}

// Choice format: the magic, `key <key>`, one `param <name> <value>` line per
// parameter, then `end` (a truncated file has none).
static constexpr llvm::StringLiteral kChoiceMagic = "tessera-model-choice 1";

std::string DiskCache::choicePathOf(llvm::StringRef key) const {
  llvm::SmallString<256> p(dir_);
  llvm::sys::path::append(p, key + ".tmc");
  return std::string(p);
}

std::optional<std::map<std::string, int64_t>> DiskCache::loadChoice(llvm::StringRef key) const {
  std::string path = choicePathOf(key);
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return std::nullopt;
  auto corrupt = [&]() -> std::optional<std::map<std::string, int64_t>> {
    ++corrupt_;
    (void)llvm::sys::fs::remove(path);
    return std::nullopt;
  };
  llvm::SmallVector<llvm::StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (lines.size() < 3 || lines.front() != kChoiceMagic || lines[1] != ("key " + key).str() ||
      lines.back() != "end")
    return corrupt();
  std::map<std::string, int64_t> params;
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front(2).drop_back()) {
    llvm::SmallVector<llvm::StringRef> f;
    line.split(f, ' ');
    int64_t v;
    if (f.size() != 3 || f[0] != "param" || f[1].empty() || f[2].getAsInteger(10, v))
      return corrupt();
    params[f[1].str()] = v;
  }
  return params;
}

llvm::Error DiskCache::storeChoice(llvm::StringRef key,
                                   const std::map<std::string, int64_t> &params) const {
  return writeAtomically(key, choicePathOf(key), [&](llvm::raw_ostream &os) {
    os << kChoiceMagic << "\nkey " << key << '\n';
    for (auto &[name, value] : params)
      os << "param " << name << ' ' << value << '\n';
    os << "end\n";
  });
}
