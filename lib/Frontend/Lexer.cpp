//===- Lexer.cpp - the tile language lexer ----------------------*- C++ -*-===//
//
// A hand-written lexer: identifiers and keywords, i32/f32 literals (`1`, `1.0`,
// `1.0e-5`, `2e3`), operators, and `//` comments. Columns count bytes.
//
//===----------------------------------------------------------------------===//
#include "lib/Frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace tessera;

const char *tessera::tokName(Tok k) {
  switch (k) {
  case Tok::Eof:
    return "end of file";
  case Tok::Error:
    return "invalid token";
  case Tok::Ident:
    return "identifier";
  case Tok::Int:
    return "integer literal";
  case Tok::Float:
    return "float literal";
  case Tok::String:
    return "string literal";
  case Tok::KwKernel:
    return "'kernel'";
  case Tok::KwTune:
    return "'tune'";
  case Tok::KwIn:
    return "'in'";
  case Tok::KwWhere:
    return "'where'";
  case Tok::KwGrid:
    return "'grid'";
  case Tok::KwLet:
    return "'let'";
  case Tok::KwVar:
    return "'var'";
  case Tok::KwFor:
    return "'for'";
  case Tok::KwIf:
    return "'if'";
  case Tok::KwElse:
    return "'else'";
  case Tok::KwTrue:
    return "'true'";
  case Tok::KwFalse:
    return "'false'";
  case Tok::KwNone:
    return "'None'";
  case Tok::KwInf:
    return "'inf'";
  case Tok::KwTensor:
    return "'tensor'";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::Comma:
    return "','";
  case Tok::Colon:
    return "':'";
  case Tok::Semi:
    return "';'";
  case Tok::Dot:
    return "'.'";
  case Tok::Assign:
    return "'='";
  case Tok::FatArrow:
    return "'=>'";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::Percent:
    return "'%'";
  case Tok::Lt:
    return "'<'";
  case Tok::Le:
    return "'<='";
  case Tok::Gt:
    return "'>'";
  case Tok::Ge:
    return "'>='";
  case Tok::EqEq:
    return "'=='";
  case Tok::Ne:
    return "'!='";
  case Tok::AndAnd:
    return "'&&'";
  case Tok::OrOr:
    return "'||'";
  case Tok::Bang:
    return "'!'";
  }
  return "token";
}

char Lexer::peek(size_t ahead) const {
  llvm::StringRef t = file_.text();
  return pos_ + ahead < t.size() ? t[pos_ + ahead] : '\0';
}

char Lexer::advance() {
  char c = peek();
  if (pos_ >= file_.text().size())
    return '\0';
  ++pos_;
  if (c == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  return c;
}

void Lexer::skipSpaceAndComments() {
  while (pos_ < file_.text().size()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (pos_ < file_.text().size() && peek() != '\n')
        advance();
    } else {
      return;
    }
  }
}

std::vector<Token> Lexer::lexAll() {
  std::vector<Token> toks;
  for (;;) {
    toks.push_back(next());
    if (toks.back().kind == Tok::Eof)
      return toks;
  }
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }

Token Lexer::lexIdent(SourceLoc loc) {
  size_t start = pos_;
  while (isIdentStart(peek()) || isDigit(peek()))
    advance();
  Token t;
  t.loc = loc;
  t.text = file_.text().substr(start, pos_ - start).str();
  t.kind = llvm::StringSwitch<Tok>(t.text)
               .Case("kernel", Tok::KwKernel)
               .Case("tune", Tok::KwTune)
               .Case("in", Tok::KwIn)
               .Case("where", Tok::KwWhere)
               .Case("grid", Tok::KwGrid)
               .Case("let", Tok::KwLet)
               .Case("var", Tok::KwVar)
               .Case("for", Tok::KwFor)
               .Case("if", Tok::KwIf)
               .Case("else", Tok::KwElse)
               .Case("true", Tok::KwTrue)
               .Case("false", Tok::KwFalse)
               .Case("None", Tok::KwNone)
               .Case("inf", Tok::KwInf)
               .Case("tensor", Tok::KwTensor)
               .Default(Tok::Ident);
  return t;
}

Token Lexer::lexNumber(SourceLoc loc) {
  size_t start = pos_;
  bool isFloat = false;
  while (isDigit(peek()))
    advance();
  // A '.' followed by a digit continues a float; `2.T` style member access does not.
  if (peek() == '.' && isDigit(peek(1))) {
    isFloat = true;
    advance();
    while (isDigit(peek()))
      advance();
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
    isFloat = true;
    advance();
    if (peek() == '+' || peek() == '-')
      advance();
    while (isDigit(peek()))
      advance();
  }
  Token t;
  t.loc = loc;
  t.text = file_.text().substr(start, pos_ - start).str();
  if (isIdentStart(peek())) {
    while (isIdentStart(peek()) || isDigit(peek()))
      advance();
    diags_.error(loc, "malformed number '" + file_.text().substr(start, pos_ - start) + "'");
    t.kind = Tok::Error;
    return t;
  }
  if (isFloat) {
    errno = 0;
    t.floatValue = std::strtod(t.text.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(t.floatValue)) {
      diags_.error(loc, "float literal '" + t.text + "' is out of range");
      t.kind = Tok::Error;
      return t;
    }
    t.kind = Tok::Float;
    return t;
  }
  errno = 0;
  unsigned long long v = std::strtoull(t.text.c_str(), nullptr, 10);
  if (errno == ERANGE || v > (unsigned long long)INT64_MAX) {
    diags_.error(loc, "integer literal '" + t.text + "' is too large");
    t.kind = Tok::Error;
    return t;
  }
  t.kind = Tok::Int;
  t.intValue = (int64_t)v;
  return t;
}

Token Lexer::next() {
  skipSpaceAndComments();
  size_t begin = pos_;
  Token t = lexToken();
  t.offset = begin;
  t.endOffset = pos_;
  t.end = {line_, col_};
  return t;
}

Token Lexer::lexToken() {
  SourceLoc loc{line_, col_};
  Token t;
  t.loc = loc;
  if (pos_ >= file_.text().size()) {
    t.kind = Tok::Eof;
    return t;
  }
  char c = peek();
  if (isIdentStart(c))
    return lexIdent(loc);
  if (isDigit(c))
    return lexNumber(loc);
  advance();
  auto two = [&](char second, Tok ifTwo, Tok ifOne) {
    if (peek() == second) {
      advance();
      return ifTwo;
    }
    return ifOne;
  };
  switch (c) {
  case '(':
    t.kind = Tok::LParen;
    break;
  case ')':
    t.kind = Tok::RParen;
    break;
  case '[':
    t.kind = Tok::LBracket;
    break;
  case ']':
    t.kind = Tok::RBracket;
    break;
  case '{':
    t.kind = Tok::LBrace;
    break;
  case '}':
    t.kind = Tok::RBrace;
    break;
  case ',':
    t.kind = Tok::Comma;
    break;
  case ':':
    t.kind = Tok::Colon;
    break;
  case ';':
    t.kind = Tok::Semi;
    break;
  case '.':
    t.kind = Tok::Dot;
    break;
  case '+':
    t.kind = Tok::Plus;
    break;
  case '-':
    t.kind = Tok::Minus;
    break;
  case '*':
    t.kind = Tok::Star;
    break;
  case '/':
    t.kind = Tok::Slash;
    break;
  case '%':
    t.kind = Tok::Percent;
    break;
  case '=':
    t.kind = peek() == '>' ? Tok::FatArrow : two('=', Tok::EqEq, Tok::Assign);
    if (t.kind == Tok::FatArrow)
      advance();
    break;
  case '<':
    t.kind = two('=', Tok::Le, Tok::Lt);
    break;
  case '>':
    t.kind = two('=', Tok::Ge, Tok::Gt);
    break;
  case '!':
    t.kind = two('=', Tok::Ne, Tok::Bang);
    break;
  case '&':
    if (peek() == '&') {
      advance();
      t.kind = Tok::AndAnd;
    } else {
      diags_.error(loc, "unexpected character '&'; did you mean '&&'?");
      t.kind = Tok::Error;
    }
    break;
  case '|':
    if (peek() == '|') {
      advance();
      t.kind = Tok::OrOr;
    } else {
      diags_.error(loc, "unexpected character '|'; did you mean '||'?");
      t.kind = Tok::Error;
    }
    break;
  case '"': {
    // One line; \" and \\ are the only escapes.
    std::string text;
    while (pos_ < file_.text().size() && peek() != '"' && peek() != '\n') {
      if (peek() == '\\' && (peek(1) == '"' || peek(1) == '\\'))
        advance();
      text += peek();
      advance();
    }
    if (peek() != '"') {
      diags_.error(loc, "unterminated string literal (a string ends on its line)");
      t.kind = Tok::Error;
      break;
    }
    advance();
    t.kind = Tok::String;
    t.loc = loc;
    t.text = std::move(text);
    return t;
  }
  case '\'': {
    // Report a whole string once rather than each quote.
    while (pos_ < file_.text().size() && peek() != c && peek() != '\n')
      advance();
    if (peek() == c)
      advance();
    diags_.error(loc, "strings take double quotes: \"...\"");
    t.kind = Tok::Error;
    break;
  }
  default: {
    std::string shown;
    if (c >= 32 && c < 127) {
      shown = std::string("'") + c + "'";
    } else {
      char buf[8];
      snprintf(buf, sizeof buf, "0x%02X", (unsigned char)c);
      shown = buf;
      // Skip the rest of a multi-byte UTF-8 sequence so it is reported once.
      while (((unsigned char)peek() & 0xC0) == 0x80)
        advance();
    }
    diags_.error(loc, "unexpected character " + shown);
    t.kind = Tok::Error;
    break;
  }
  }
  t.text = tokName(t.kind);
  return t;
}
