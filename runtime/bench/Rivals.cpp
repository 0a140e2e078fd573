//===- Rivals.cpp - sides measured outside tessera bench ------------------===//
//
// Reads a rivals file (Rivals.h) and joins its rows to the bench's results by
// workload and size. Every malformed input is an error naming the file and
// the row; nothing is guessed.
//
//===----------------------------------------------------------------------===//
#include "runtime/bench/Rivals.h"
#include "lib/Support/Errors.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace tessera;
using namespace tessera::bench;

namespace {

/// One row: the side with its timings, or an error saying which field is off.
llvm::Expected<std::pair<std::string, Side>> parseRow(const llvm::json::Value &v,
                                                      const llvm::Twine &where) {
  const llvm::json::Object *o = v.getAsObject();
  if (!o)
    return makeError(where + ": a row must be an object");
  auto text = [&](llvm::StringRef key) -> llvm::Expected<std::string> {
    std::optional<llvm::StringRef> s = o->getString(key);
    if (!s || s->empty())
      return makeError(where + ": \"" + key + "\" must be a non-empty string");
    return s->str();
  };
  auto ms = [&](llvm::StringRef key) -> llvm::Expected<double> {
    std::optional<double> d = o->getNumber(key);
    if (!d || !std::isfinite(*d) || *d <= 0)
      return makeError(where + ": \"" + key + "\" must be a positive number of milliseconds");
    return *d;
  };
  auto workload = text("workload"), size = text("size"), side = text("side");
  for (llvm::Expected<std::string> *s : {&workload, &size, &side})
    if (!*s)
      return s->takeError();
  auto median = ms("median_ms"), lo = ms("min_ms"), hi = ms("max_ms");
  for (llvm::Expected<double> *d : {&median, &lo, &hi})
    if (!*d)
      return d->takeError();
  if (!(*lo <= *median && *median <= *hi))
    return makeError(where + ": min_ms <= median_ms <= max_ms does not hold");
  if (*side == "tessera")
    return makeError(where + ": a rival cannot be named \"tessera\"");
  std::optional<bool> ok = o->getBoolean("ok");
  if (!ok)
    return makeError(where + ": \"ok\" must be true or false");
  Side s{*side, *median, *lo, *hi, NAN, *ok, ""};
  if (const llvm::json::Value *note = o->get("note")) {
    if (!note->getAsString())
      return makeError(where + ": \"note\" must be a string");
    s.note = note->getAsString()->str();
  }
  s.external = true;
  return std::make_pair(*workload + " " + *size, std::move(s));
}

} // namespace

llvm::Expected<Rivals> tessera::bench::parseRivals(llvm::StringRef text, llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
  if (!v)
    return makeError(path + ": not JSON: " + llvm::toString(v.takeError()));
  const llvm::json::Object *top = v->getAsObject();
  if (!top)
    return makeError(path + ": expected an object with \"device\" and \"rows\"");
  Rivals out;
  std::optional<llvm::StringRef> device = top->getString("device");
  if (!device || device->empty())
    return makeError(path + ": \"device\" must name the GPU the rows were measured on");
  out.device = device->str();
  const llvm::json::Array *rows = top->getArray("rows");
  if (!rows)
    return makeError(path + ": \"rows\" must be an array");
  for (size_t i = 0; i < rows->size(); ++i) {
    auto row = parseRow((*rows)[i], path + ": row " + llvm::Twine(i));
    if (!row)
      return row.takeError();
    for (const auto &[key, side] : out.rows)
      if (key == row->first && side.name == row->second.name)
        return makeError(path + ": row " + llvm::Twine(i) + ": a second \"" + side.name +
                         "\" row for " + key);
    out.rows.push_back(std::move(*row));
  }
  return out;
}

llvm::Expected<Rivals> tessera::bench::readRivals(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return makeError("cannot read " + path + ": " + buf.getError().message());
  return parseRivals((*buf)->getBuffer(), path);
}

llvm::Expected<std::vector<std::string>> tessera::bench::attachRivals(std::vector<Result> &results,
                                                                      const Rivals &rivals,
                                                                      llvm::StringRef device) {
  if (rivals.device != device)
    return makeError(llvm::formatv("the rivals were measured on {0}, this GPU is {1}: a "
                                   "comparison needs both on the same GPU",
                                   rivals.device, device)
                         .str());
  std::vector<std::string> unmatched;
  for (const auto &[key, side] : rivals.rows) {
    Result *r = nullptr;
    for (Result &res : results)
      if (res.spec.family + " " + res.spec.label == key)
        r = &res;
    if (r)
      r->sides.push_back(side);
    else
      unmatched.push_back(side.name + " " + key);
  }
  return unmatched;
}
