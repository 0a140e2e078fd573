//===- LexerTest.cpp - tokens and their locations ---------------*- C++ -*-===//
#include "lib/Frontend/Lexer.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {

std::vector<Token> lex(const std::string &src, std::string *errors = nullptr) {
  static std::vector<std::unique_ptr<SourceFile>> keep; // tokens outlive the call
  keep.push_back(std::make_unique<SourceFile>("t.tile", src));
  DiagnosticEngine d(*keep.back());
  Lexer l(*keep.back(), d);
  auto toks = l.lexAll();
  if (errors) {
    llvm::raw_string_ostream os(*errors);
    d.render(os);
  }
  return toks;
}

struct TokCase {
  const char *name;
  const char *src;
  std::vector<Tok> kinds;
};

class LexerKinds : public ::testing::TestWithParam<TokCase> {};

TEST_P(LexerKinds, Kinds) {
  auto toks = lex(GetParam().src);
  std::vector<Tok> kinds;
  for (auto &t : toks)
    kinds.push_back(t.kind);
  std::vector<Tok> want = GetParam().kinds;
  want.push_back(Tok::Eof);
  EXPECT_EQ(kinds, want);
}

INSTANTIATE_TEST_SUITE_P(
    Lexer, LexerKinds,
    ::testing::Values(
        TokCase{"Keywords",
                "kernel tune in where grid let var for if else",
                {Tok::KwKernel, Tok::KwTune, Tok::KwIn, Tok::KwWhere, Tok::KwGrid, Tok::KwLet,
                 Tok::KwVar, Tok::KwFor, Tok::KwIf, Tok::KwElse}},
        TokCase{"Literals",
                "1 2.5 1.0e-5 3e2 true false inf None",
                {Tok::Int, Tok::Float, Tok::Float, Tok::Float, Tok::KwTrue, Tok::KwFalse,
                 Tok::KwInf, Tok::KwNone}},
        TokCase{"Operators",
                "+ - * / % < <= > >= == != && || ! =",
                {Tok::Plus, Tok::Minus, Tok::Star, Tok::Slash, Tok::Percent, Tok::Lt, Tok::Le,
                 Tok::Gt, Tok::Ge, Tok::EqEq, Tok::Ne, Tok::AndAnd, Tok::OrOr, Tok::Bang,
                 Tok::Assign}},
        TokCase{"Punctuation",
                "( ) [ ] { } , : ; .",
                {Tok::LParen, Tok::RParen, Tok::LBracket, Tok::RBracket, Tok::LBrace, Tok::RBrace,
                 Tok::Comma, Tok::Colon, Tok::Semi, Tok::Dot}},
        TokCase{"MemberAfterName",
                "x.T acc.to(bf16)",
                {Tok::Ident, Tok::Dot, Tok::Ident, Tok::Ident, Tok::Dot, Tok::Ident, Tok::LParen,
                 Tok::Ident, Tok::RParen}},
        TokCase{"CommentsSkipped", "a // comment to the end\n b", {Tok::Ident, Tok::Ident}},
        TokCase{"BadCharacter", "a $ b", {Tok::Ident, Tok::Error, Tok::Ident}}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(Lexer, LocationsAreOneBased) {
  auto toks = lex("kernel k(\n  x: f32)");
  ASSERT_GE(toks.size(), 5u);
  EXPECT_EQ(toks[0].loc.line, 1u);
  EXPECT_EQ(toks[0].loc.col, 1u);
  EXPECT_EQ(toks[1].loc.col, 8u);
  EXPECT_EQ(toks[3].loc.line, 2u);
  EXPECT_EQ(toks[3].loc.col, 3u);
}

TEST(Lexer, NumberValues) {
  auto toks = lex("42 1.0e-5 2147483648");
  EXPECT_EQ(toks[0].intValue, 42);
  EXPECT_DOUBLE_EQ(toks[1].floatValue, 1.0e-5);
  EXPECT_EQ(toks[2].intValue, 2147483648LL);
}

TEST(Lexer, ReportsMalformedNumber) {
  std::string errs;
  lex("let x = 12ab;", &errs);
  EXPECT_NE(errs.find("t.tile:1:9: error: malformed number '12ab'"), std::string::npos) << errs;
}

TEST(Lexer, ReportsHugeInteger) {
  std::string errs;
  lex("99999999999999999999", &errs);
  EXPECT_NE(errs.find("integer literal '99999999999999999999' is too large"), std::string::npos);
}

TEST(Lexer, SingleAmpersandSuggestsAndAnd) {
  std::string errs;
  lex("a & b", &errs);
  EXPECT_NE(errs.find("1:3: error: unexpected character '&'; did you mean '&&'?"),
            std::string::npos)
      << errs;
}

TEST(Lexer, NonAsciiByteReportedOnce) {
  std::string errs;
  auto toks = lex("a \xC3\xA9 b", &errs);
  EXPECT_EQ(toks.size(), 4u); // a, error, b, eof
  EXPECT_NE(errs.find("unexpected character 0xC3"), std::string::npos) << errs;
}

} // namespace
