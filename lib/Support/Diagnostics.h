//===- Diagnostics.h - located diagnostics ----------------------*- C++ -*-===//
//
// A source file in memory and a diagnostic engine that collects located errors
// and renders each one as `FILE:LINE:COL: error: MESSAGE`, then the source line
// and a caret under the column. Library code reports here and returns failure; it
// never prints and exits. MLIR diagnostics whose location is a FileLineColLoc in
// the same file are rendered the same way (see `DiagnosticEngine::attach`).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_SUPPORT_DIAGNOSTICS_H
#define TESSERA_SUPPORT_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class Diagnostic;
} // namespace mlir

namespace tessera {

/// A position in a source file: 1-based line and column (in bytes).
struct SourceLoc {
  unsigned line = 0, col = 0;
  bool valid() const { return line != 0; }
};

/// The text of one source file and the offsets of its lines.
class SourceFile {
public:
  SourceFile(std::string name, std::string text);
  llvm::StringRef name() const { return name_; }
  llvm::StringRef text() const { return text_; }
  /// The text of line `line` (1-based) without its newline; empty if out of range.
  llvm::StringRef lineText(unsigned line) const;

private:
  std::string name_, text_;
  std::vector<size_t> lineStarts_;
};

enum class Severity { Error, Warning, Note };

struct Diag {
  Severity severity;
  SourceLoc loc;
  std::string message;
};

/// Collects diagnostics for one source file; stops recording errors after a limit.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceFile &file, unsigned errorLimit = 20)
      : file_(file), errorLimit_(errorLimit) {}

  void error(SourceLoc loc, const llvm::Twine &msg);
  void warning(SourceLoc loc, const llvm::Twine &msg);
  void note(SourceLoc loc, const llvm::Twine &msg);

  unsigned numErrors() const { return numErrors_; }
  bool hasErrors() const { return numErrors_ != 0; }
  /// True once the error limit is reached: callers should stop early.
  bool full() const { return numErrors_ >= errorLimit_; }
  const std::vector<Diag> &diags() const { return diags_; }
  const SourceFile &file() const { return file_; }

  /// Renders every diagnostic collected so far in source order (and a "too many
  /// errors" line).
  void render(llvm::raw_ostream &os) const;
  void renderOne(llvm::raw_ostream &os, const Diag &d) const;
  bool truncated() const { return truncated_; }
  void markTruncated() { truncated_ = true; }
  /// Drops everything collected (used when a stage is retried).
  void clear() {
    diags_.clear();
    numErrors_ = 0;
    truncated_ = false;
  }

  /// Routes MLIR diagnostics emitted on `ctx` into this engine while alive.
  class MLIRHandler {
  public:
    /// `internal`: errors are the compiler's fault (verification after Sema), and
    /// say so; otherwise they are the program's (e.g. unsupported by codegen).
    MLIRHandler(DiagnosticEngine &engine, mlir::MLIRContext &ctx, bool internal = true);
    ~MLIRHandler();
    MLIRHandler(const MLIRHandler &) = delete;
    MLIRHandler &operator=(const MLIRHandler &) = delete;

  private:
    mlir::MLIRContext &ctx_;
    uint64_t id_;
  };

private:
  void add(Severity s, SourceLoc loc, const llvm::Twine &msg);
  const SourceFile &file_;
  unsigned errorLimit_;
  unsigned numErrors_ = 0;
  bool truncated_ = false;
  std::vector<Diag> diags_;
};

/// An error message without a source location, rendered as `tessera: error: ...`.
void printToolError(llvm::raw_ostream &os, const llvm::Twine &msg);

} // namespace tessera

#endif
