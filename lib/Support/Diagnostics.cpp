//===- Diagnostics.cpp - located diagnostics --------------------*- C++ -*-===//
//
// Rendering of diagnostics with the source line and a caret, and the bridge from
// MLIR's diagnostic engine.
//
//===----------------------------------------------------------------------===//
#include "lib/Support/Diagnostics.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>

using namespace tessera;

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n')
      lineStarts_.push_back(i + 1);
}

llvm::StringRef SourceFile::lineText(unsigned line) const {
  if (line == 0 || line > lineStarts_.size())
    return {};
  size_t start = lineStarts_[line - 1];
  size_t end = line < lineStarts_.size() ? lineStarts_[line] - 1 : text_.size();
  llvm::StringRef s(text_.data() + start, end - start);
  return s.rtrim("\r");
}

void DiagnosticEngine::add(Severity s, SourceLoc loc, const llvm::Twine &msg) {
  if (s == Severity::Error) {
    if (numErrors_ >= errorLimit_) {
      truncated_ = true;
      return;
    }
    ++numErrors_;
  } else if (numErrors_ >= errorLimit_) {
    return;
  }
  diags_.push_back({s, loc, msg.str()});
}

void DiagnosticEngine::error(SourceLoc loc, const llvm::Twine &msg) {
  add(Severity::Error, loc, msg);
}
void DiagnosticEngine::warning(SourceLoc loc, const llvm::Twine &msg) {
  add(Severity::Warning, loc, msg);
}
void DiagnosticEngine::note(SourceLoc loc, const llvm::Twine &msg) {
  add(Severity::Note, loc, msg);
}

void DiagnosticEngine::renderOne(llvm::raw_ostream &os, const Diag &d) const {
  const char *kind = d.severity == Severity::Error     ? "error"
                     : d.severity == Severity::Warning ? "warning"
                                                       : "note";
  if (!d.loc.valid()) {
    os << file_.name() << ": " << kind << ": " << d.message << "\n";
    return;
  }
  os << file_.name() << ":" << d.loc.line << ":" << d.loc.col << ": " << kind << ": " << d.message
     << "\n";
  llvm::StringRef line = file_.lineText(d.loc.line);
  os << line << "\n";
  // Keep tabs so that the caret lines up with the text above it.
  std::string caret;
  for (unsigned i = 1; i < d.loc.col; ++i)
    caret += (i - 1 < line.size() && line[i - 1] == '\t') ? '\t' : ' ';
  os << caret << "^\n";
}

void DiagnosticEngine::render(llvm::raw_ostream &os) const {
  // Stages report in their own order (the lexer runs ahead of the parser);
  // the reader gets source order. Unlocated diagnostics come first.
  std::vector<const Diag *> sorted;
  for (const Diag &d : diags_)
    sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diag *a, const Diag *b) {
    return std::make_pair(a->loc.line, a->loc.col) < std::make_pair(b->loc.line, b->loc.col);
  });
  for (const Diag *d : sorted)
    renderOne(os, *d);
  if (truncated_)
    os << file_.name() << ": error: too many errors (limit " << errorLimit_ << "); stopping\n";
}

DiagnosticEngine::MLIRHandler::MLIRHandler(DiagnosticEngine &engine, mlir::MLIRContext &ctx,
                                           bool internal)
    : ctx_(ctx) {
  id_ = ctx.getDiagEngine().registerHandler([&engine, internal](mlir::Diagnostic &diag) {
    SourceLoc loc;
    if (auto flc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation())) {
      loc.line = flc.getLine();
      loc.col = flc.getColumn();
    }
    std::string msg = diag.str();
    switch (diag.getSeverity()) {
    case mlir::DiagnosticSeverity::Error:
      engine.error(loc, internal ? "internal compiler error: " + msg : msg);
      break;
    case mlir::DiagnosticSeverity::Warning:
      engine.warning(loc, msg);
      break;
    default:
      engine.note(loc, msg);
      break;
    }
    return mlir::success();
  });
}

DiagnosticEngine::MLIRHandler::~MLIRHandler() { ctx_.getDiagEngine().eraseHandler(id_); }

void tessera::printToolError(llvm::raw_ostream &os, const llvm::Twine &msg) {
  os << "tessera: error: " << msg << "\n";
}
