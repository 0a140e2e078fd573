//===- Npy.cpp - NumPy .npy arrays ------------------------------*- C++ -*-===//
#include "lib/Support/Npy.h"
#include "lib/Support/Errors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessera;

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

llvm::Error bad(llvm::StringRef name, const llvm::Twine &why) {
  return makeError(name + ": not a .npy array Tessera can read: " + why);
}

/// The value of `key` in the header's Python dict literal, unparsed.
std::optional<llvm::StringRef> dictValue(llvm::StringRef header, llvm::StringRef key) {
  size_t k = header.find(("'" + key + "'").str());
  if (k == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(k + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  size_t end = rest.front() == '('    ? rest.find(')') + 1
               : rest.front() == '\'' ? rest.find('\'', 1) + 1
                                      : rest.find_first_of(",}");
  return rest.take_front(end).trim();
}

std::optional<DType> dtypeOf(llvm::StringRef descr) {
  if (descr == "'<f4'")
    return DType::F32;
  if (descr == "'<f2'")
    return DType::F16;
  if (descr == "'<f8'")
    return DType::F64;
  if (descr == "'<i4'")
    return DType::I32;
  if (descr == "'<i8'")
    return DType::I64;
  if (descr == "'|b1'")
    return DType::Bool;
  if (descr == "'|i1'")
    return DType::I8;
  if (descr == "'|u1'")
    return DType::U8;
  if (descr == "'<u4'")
    return DType::U32;
  if (descr == "'|V2'" || descr == "'<V2'")
    return DType::BF16;
  if (descr == "'|V1'" || descr == "'<V1'") // f8 bits; the reader may mean f8e5m2
    return DType::F8E4M3;
  return std::nullopt;
}

const char *descrOf(DType t) {
  switch (t) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "|V2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::Bool:
    return "|b1";
  case DType::F64:
    return "<f8";
  case DType::I8:
    return "|i1";
  case DType::U8:
    return "|u1";
  case DType::U32:
    return "<u4";
  case DType::F8E4M3:
  case DType::F8E5M2:
    return "|V1";
  }
  return "";
}

} // namespace

llvm::Expected<NpyArray> tessera::parseNpy(llvm::StringRef bytes, llvm::StringRef name) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return bad(name, "no .npy magic");
  unsigned major = (unsigned char)bytes[6];
  size_t headerLen, start;
  if (major == 1) {
    headerLen = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return bad(name, "truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= (size_t)(unsigned char)bytes[8 + i] << (8 * i);
    start = 12;
  } else {
    return bad(name, "format version " + llvm::Twine(major));
  }
  if (bytes.size() < start + headerLen)
    return bad(name, "truncated header");
  llvm::StringRef header = bytes.substr(start, headerLen);
  auto descr = dictValue(header, "descr"), order = dictValue(header, "fortran_order"),
       shapeText = dictValue(header, "shape");
  if (!descr || !order || !shapeText)
    return bad(name, "the header lacks descr, fortran_order or shape");
  NpyArray a;
  std::optional<DType> dt = dtypeOf(*descr);
  if (!dt)
    return bad(name, "dtype " + *descr + " (supported: <f4 <f2 <i4 <i8 |b1, and |V2 for bf16)");
  a.dtype = *dt;
  if (*order != "False")
    return bad(name, "Fortran order (save a C-contiguous array)");
  llvm::StringRef dims = shapeText->trim("() ");
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef p : parts) {
    int64_t v;
    if (p.trim().getAsInteger(10, v) || v < 0)
      return bad(name, "shape " + *shapeText);
    a.shape.push_back(v);
  }
  // The element count must fit, and the data must be all there.
  uint64_t n = 1;
  for (int64_t d : a.shape) {
    if (d && n > (uint64_t(1) << 40) / (uint64_t)d)
      return bad(name, "more than 2^40 elements");
    n *= (uint64_t)d;
  }
  uint64_t need = n * dtypeBytes(a.dtype);
  llvm::StringRef payload = bytes.drop_front(start + headerLen);
  if (payload.size() < need)
    return bad(name, "the data is truncated (" + llvm::Twine(payload.size()) + " of " +
                         llvm::Twine(need) + " bytes)");
  a.data.assign(payload.begin(), payload.begin() + need);
  return std::move(a);
}

llvm::Expected<NpyArray> tessera::readNpy(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(buf.getError(),
                                   "cannot read " + path + ": " + buf.getError().message());
  return parseNpy((*buf)->getBuffer(), path);
}

std::string tessera::serializeNpy(const NpyArray &a) {
  std::string shape = "(";
  for (int64_t d : a.shape)
    shape += std::to_string(d) + ",";
  if (a.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + descrOf(a.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64, the header ending in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += (char)(header.size() & 0xff);
  out += (char)(header.size() >> 8);
  out += header;
  out.append(a.data.begin(), a.data.end());
  return out;
}

llvm::Error tessera::writeNpy(llvm::StringRef path, const NpyArray &a) {
  std::string bytes = serializeNpy(a);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return llvm::createStringError(ec, "cannot write " + path + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(),
                                   "cannot write " + path + ": " + os.error().message());
  return llvm::Error::success();
}
