// SPDX-License-Identifier: MIT
// The kernel DSL: values on the host, the IR a trace records, and the rules only a trace checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <parloop/dsl/source_array_parameters.hpp>
#include <parloop/dsl/source_functions.hpp>
#include <parloop/dsl/source_std_calls.hpp>
#include <parloop/exec/distributed/halo.hpp>
#include <parloop/parloop.hpp>

#include "check_values.hpp"
#include "random_mesh.hpp"
#include "temporary_folder.hpp"

// A namespace of this file's own: test_units compiles the unit files as one translation unit.
namespace test_dsl {

namespace pl = parloop;
using Catch::Matchers::Contains;
using parloop_test::check_values;

namespace {

pl::Runtime host() { return pl::Runtime::open(pl::backend_kind::host); }

std::vector<pl::ir::stmt_kind> body_kinds(const pl::ir::kernel& k) {
  std::vector<pl::ir::stmt_kind> kinds;
  for (auto s : k.blocks[0].stmts) kinds.push_back(k.stmts[s].kind);
  return kinds;
}

}  // namespace

TEST_CASE("math functions compute on the host as the C++ library does", "[dsl][math]") {
  const pl::Runtime rt = host();
  const int n = 64;
  const pl::Set s(rt, n);
  std::vector<double> x0(n), y0(n);
  for (int i = 0; i < n; ++i) {
    x0[i] = 0.05 + i * 0.1;
    y0[i] = -1.5 + i * 0.07;
  }
  pl::Dat<double> x(s, x0), y(s, y0);
  pl::Dat<double, 13> out(s);
  auto k = pl::kernel("math", [](auto x, auto y, auto o) {
    o[0] = pl::sqrt(x);
    o[1] = pl::fabs(y);
    o[2] = pl::exp(y);
    o[3] = pl::log(x);
    o[4] = pl::pow(x, y);
    o[5] = pl::min(x, y);
    o[6] = pl::max(x, y);
    o[7] = pl::sin(y);
    o[8] = pl::cos(y);
    o[9] = pl::tan(y);
    o[10] = pl::atan2(y, x);
    o[11] = pl::floor(y * 3);
    o[12] = pl::ceil(y * 3);
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::READ), out(pl::WRITE));
  std::vector<double> want;
  for (int i = 0; i < n; ++i) {
    const double a = x0[i], b = y0[i];
    for (double v :
         {std::sqrt(a), std::fabs(b), std::exp(b), std::log(a), std::pow(a, b), std::min(a, b), std::max(a, b),
          std::sin(b), std::cos(b), std::tan(b), std::atan2(b, a), std::floor(b * 3), std::ceil(b * 3)}) {
      want.push_back(v);
    }
  }
  check_values<double>(out.host(), want);
}

TEST_CASE("math on C++ numbers computes at once", "[dsl][math]") {
  STATIC_REQUIRE(std::is_same_v<decltype(pl::sqrt(4.0)), double>);
  STATIC_REQUIRE(std::is_same_v<decltype(pl::sqrt(4.0f)), float>);
  CHECK(pl::sqrt(4.0) == 2.0);
  CHECK(pl::max(2, 3.5) == 3.5);
  CHECK(pl::select(false, 1, 2.5) == 2.5);
}

TEST_CASE("expressions carry C++ types and promotion into the IR", "[dsl][types]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 4);
  pl::Dat<float> f(s);
  pl::Dat<std::int32_t> i(s);
  pl::Dat<std::int64_t> l(s);
  pl::Dat<double> d(s);
  auto k = pl::kernel("types", [](auto f, auto i, auto l, auto d) {
    pl::let("a", f * i);        // float
    pl::let("b", f * 0.5);      // double: a double literal promotes, as in C++
    pl::let("c", f * 0.5f);     // float
    pl::let("e", i + l);        // int64
    pl::let("g", i / 2);        // int
    pl::let("h", i < f);        // bool
    pl::let("m", pl::sqrt(f));  // float
    pl::let("n", pl::sqrt(i));  // double
    d = pl::cast<double>(i);
  });
  pl::par_loop(k, s, f(pl::READ), i(pl::READ), l(pl::READ), d(pl::WRITE));
  const auto ir = k.traced(f(pl::READ), i(pl::READ), l(pl::READ), d(pl::WRITE));
  using st = pl::scalar_type;
  const std::vector<st> want = {st::float32, st::float64, st::float32, st::int64,
                                st::int32,   st::boolean, st::float32, st::float64};
  REQUIRE(ir->locals.size() == want.size());
  for (std::size_t n = 0; n < want.size(); ++n) CHECK(ir->locals[n].type == want[n]);
  CHECK(ir->params[0].type == st::float32);
  CHECK(ir->params[2].type == st::int64);
  const auto& last = ir->stmts[ir->blocks[0].stmts.back()];
  CHECK(ir->exprs[last.value].kind == pl::ir::expr_kind::cast);
}

TEST_CASE("let names are kept, made unique, and checked", "[dsl][let]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 3);
  pl::Dat<double> x(s), y(s);
  auto k = pl::kernel("names", [](auto x, auto y) {
    auto f = pl::let("flux", x * 2);
    auto g = pl::let("flux", f + 1);
    auto h = pl::let(g);
    y = h;
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
  const auto ir = k.traced(x(pl::READ), y(pl::WRITE));
  REQUIRE(ir->locals.size() == 3);
  CHECK(ir->locals[0].name == "flux");
  CHECK(ir->locals[1].name == "flux_1");
  CHECK(ir->locals[2].name == "v");

  auto bad = pl::kernel("bad_name", [](auto x, auto y) { y = pl::let("two words", x); });
  CHECK_THROWS_AS(pl::par_loop(bad, s, x(pl::READ), y(pl::WRITE)), pl::trace_error);
  CHECK_THROWS_WITH(pl::par_loop(bad, s, x(pl::READ), y(pl::WRITE)), Contains("'two words' cannot name a local"));
  // A keyword is a C identifier: the generated source prefixes locals, so it is a fine name.
  auto keyword = pl::kernel("float", [](auto x, auto y) { y = pl::let("float", x); });
  CHECK_NOTHROW(pl::par_loop(keyword, s, x(pl::READ), y(pl::WRITE)));
  CHECK(keyword.traced(x(pl::READ), y(pl::WRITE))->locals[0].name == "float");

  CHECK_THROWS_AS(pl::kernel("not a name", [](auto) {}), pl::argument_error);
  CHECK_THROWS_WITH(pl::kernel("9lives", [](auto) {}), Contains("kernel name '9lives' is not a C identifier"));
  // A source kernel's function is called by the entry point: it cannot take the entry's names.
  CHECK_THROWS_WITH(pl::kernel_from_source("pl_step", "void pl_step(double* x) {}"),
                    Contains("kernel_from_source name 'pl_step' is a name of the generated entry point"));
  CHECK_THROWS_WITH(pl::kernel_from_source("data0", "void data0(double* x) {}"), Contains("'data0'"));
  // Names stay short enough for every compiler and file system, on every backend alike.
  const std::string longest(128, 'k'), too_long(129, 'k');
  CHECK_NOTHROW(pl::kernel(longest, [](auto) {}));
  CHECK_NOTHROW(pl::kernel_from_source(longest, "void " + longest + "(double* x) {}"));
  CHECK_THROWS_WITH(pl::kernel(too_long, [](auto) {}), Contains("has 129 characters: at most 128 are allowed"));
  CHECK_THROWS_WITH(pl::kernel_from_source(std::string(5000, 'c'), "void f(double* x) {}"),
                    Contains("has 5000 characters"));
  // What a macro cannot rename in C source is refused by name (test_device_loops runs the names
  // OpenCL C and CUDA take for themselves).
  CHECK_THROWS_WITH(pl::kernel_from_source("int", "void int(double* x) {}"), Contains("'int' is a word of C"));
  CHECK_THROWS_WITH(pl::kernel_from_source("__step", "void __step(double* x) {}"), Contains("is reserved by C"));
  CHECK_THROWS_WITH(pl::kernel_from_source("_Step", "void _Step(double* x) {}"), Contains("is reserved by C"));
  CHECK_THROWS_WITH(pl::kernel_from_source("INFINITY", "void INFINITY(double* x) {}"),
                    Contains("a macro of OpenCL C that the generated entry point uses"));
}

TEST_CASE("a copied local is a new local, as a copied C++ variable is", "[dsl][let]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 2);
  pl::Dat<double, 2> y(s);
  auto k = pl::kernel("copies", [](auto y) {
    auto a = pl::let(1.0);
    auto b = a;
    b += 1.0;
    y[0] = a;
    y[1] = b;
  });
  pl::par_loop(k, s, y(pl::WRITE));
  CHECK(y.host()[0] == 1.0);
  CHECK(y.host()[1] == 2.0);
  CHECK(k.traced(y(pl::WRITE))->locals.size() == 2);
}

TEST_CASE("an expression that is never assigned records nothing", "[dsl][trace]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 2);
  pl::Dat<double> x(s), y(s);
  auto k = pl::kernel("unused", [](auto x, auto y) {
    auto unused = pl::sqrt(x * x + 1.0);
    (void)unused;
    y = x;
  });
  pl::par_loop(k, s, x(pl::READ), y(pl::WRITE));
  const auto ir = k.traced(x(pl::READ), y(pl::WRITE));
  CHECK(body_kinds(*ir) == std::vector{pl::ir::stmt_kind::assign});
  for (const auto& e : ir->exprs) CHECK(e.kind != pl::ir::expr_kind::call);
}

TEST_CASE("select, if_ / else_if_ / else_ and for_ on data-dependent values", "[dsl][control]") {
  const pl::Runtime rt = host();
  const int n = 200;
  const pl::Set s(rt, n);
  const auto x0 = parloop_test::random_values<double>(n * 3);
  std::vector<std::int32_t> n0(n);
  for (int i = 0; i < n; ++i) n0[i] = i % 4;
  pl::Dat<double, 3> x(s, x0);
  pl::Dat<std::int32_t> count(s, n0);
  pl::Dat<double, 4> out(s);
  auto k = pl::kernel("control", [](auto x, auto count, auto o) {
    o[0] = pl::select(x[0] > 0.0, x[0], -x[0]);
    pl::if_(x[1] > 0.5, [&] { o[1] = 1.0; })
        .else_if_(x[1] > 0.0, [&] { o[1] = 2.0; })
        .else_if_(x[1] > -0.5, [&] { o[1] = 3.0; })
        .else_([&] { o[1] = 4.0; });
    auto sum = pl::let("sum", 0.0);
    pl::for_(0, count, [&](auto j) { sum += x[j] * (j + 1); });
    o[2] = sum;
    auto acc = pl::let("acc", 0.0);
    pl::for_(0, 3, [&](auto j) { pl::if_(x[j] < 0.0 && j != 1, [&] { acc -= x[j]; }); });
    o[3] = acc;
  });
  pl::par_loop(k, s, x(pl::READ), count(pl::READ), out(pl::WRITE));

  std::vector<double> want;
  for (int i = 0; i < n; ++i) {
    const double* v = &x0[i * 3];
    want.push_back(v[0] > 0 ? v[0] : -v[0]);
    want.push_back(v[1] > 0.5 ? 1.0 : v[1] > 0.0 ? 2.0 : v[1] > -0.5 ? 3.0 : 4.0);
    double sum = 0;
    for (int j = 0; j < n0[i]; ++j) sum += v[j] * (j + 1);
    want.push_back(sum);
    double acc = 0;
    for (int j = 0; j < 3; ++j)
      if (v[j] < 0 && j != 1) acc -= v[j];
    want.push_back(acc);
  }
  check_values<double>(out.host(), want);

  const auto ir = k.traced(x(pl::READ), count(pl::READ), out(pl::WRITE));
  using sk = pl::ir::stmt_kind;
  CHECK(body_kinds(*ir) ==
        std::vector{sk::assign, sk::if_, sk::let, sk::for_, sk::assign, sk::let, sk::for_, sk::assign});
  const std::string text = pl::ir::to_string(*ir);
  CHECK_THAT(text, Contains("for (int i = 0; i < arg1[0]; ++i)"));
  CHECK_THAT(text, Contains("} else {"));
  CHECK_THAT(text, Contains("sum += (arg0[i] * (i + 1));"));
}

TEST_CASE("a C++ condition decides while tracing", "[dsl][control]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 2);
  pl::Dat<double> y(s);
  auto k = pl::kernel("constant_if", [](auto y) { pl::if_(y.size() == 1, [&] { y = 1.0; }).else_([&] { y = 2.0; }); });
  pl::par_loop(k, s, y(pl::WRITE));
  CHECK(y.host()[0] == 1.0);
  CHECK(body_kinds(*k.traced(y(pl::WRITE))) == std::vector{pl::ir::stmt_kind::assign});
}

TEST_CASE("reading a WRITE argument before writing it is refused while tracing", "[dsl][rules]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 3);
  pl::Dat<double, 2> x(s), w(s);
  auto early = pl::kernel("early", [](auto x, auto w) { w[0] = w[1] + x[0]; });
  CHECK_THROWS_AS(pl::par_loop(early, s, x(pl::READ), w(pl::WRITE)), pl::trace_error);
  CHECK_THROWS_WITH(pl::par_loop(early, s, x(pl::READ), w(pl::WRITE)),
                    Contains("kernel 'early': argument 1 is declared pl::WRITE and is read (component 1) before"));
  auto update = pl::kernel("update_unwritten", [](auto w) { w[0] += 1.0; });
  CHECK_THROWS_AS(pl::par_loop(update, s, w(pl::WRITE)), pl::trace_error);

  auto fine = pl::kernel("fine", [](auto x, auto w) {
    w[1] = x[1];
    w[0] = w[1] * 2;
    w[1] += 1.0;
  });
  x.host_view(pl::WRITE)[1] = 5.0;
  pl::par_loop(fine, s, x(pl::READ), w(pl::WRITE));
  CHECK(w.host()[0] == 10.0);
  CHECK(w.host()[1] == 6.0);
}

TEST_CASE("component and slot indices are checked", "[dsl][rules]") {
  const pl::Runtime rt = host();
  const pl::Set cells(rt, 3), edges(rt, 2);
  const pl::Map m(edges, cells, 2, std::vector<pl::index_t>{0, 1, 1, 2});
  pl::Dat<double, 2> q(cells), y(edges);
  std::vector<std::int32_t> k0 = {0, 2};
  pl::Dat<std::int32_t> idx(edges, k0);

  auto constant = pl::kernel("constant_out_of_range", [](auto q, auto y) { y[0] = q[2]; });
  CHECK_THROWS_WITH(pl::par_loop(constant, edges, q(pl::READ, m, 0), y(pl::WRITE)),
                    Contains("argument 0 has dim 2, component 2 is out of range"));
  auto slot = pl::kernel("slot_out_of_range", [](auto q, auto y) { y[0] = q[2][0]; });
  CHECK_THROWS_WITH(pl::par_loop(slot, edges, q(pl::READ, m), y(pl::WRITE)),
                    Contains("arity 2, slot 2 is out of range"));
  // A computed index is checked where it is computed: on the host, for each element.
  auto computed =
      pl::kernel("computed_out_of_range", [](auto q, auto i, auto y) { pl::for_(0, 1, [&](auto) { y[0] = q[i]; }); });
  CHECK_THROWS_WITH(pl::par_loop(computed, edges, q(pl::READ, m, 0), idx(pl::READ), y(pl::WRITE)),
                    Contains("argument 0 has 2 components; index 2 is out of range"));
}

TEST_CASE("a MIN / MAX update names its own component on both sides", "[dsl][rules]") {
  const pl::Runtime rt = host();
  const pl::Set s(rt, 3);
  pl::Dat<double> x(s);
  pl::Global<double, 2> g(rt, {0.0, 0.0});
  auto k = pl::kernel("crossed", [](auto x, auto g) { g[0] = pl::min(g[1], x); });
  CHECK_THROWS_AS(pl::par_loop(k, s, x(pl::READ), g(pl::MIN)), pl::trace_error);
  CHECK_THROWS_WITH(pl::par_loop(k, s, x(pl::READ), g(pl::MIN)), Contains("must be that same component"));
}

TEST_CASE("a kernel is traced once per argument signature", "[dsl][trace]") {
  const pl::Runtime rt = host();
  const pl::Set cells(rt, 5), edges(rt, 4);
  const pl::Map m2(edges, cells, 2, parloop_test::random_map(4, 5, 2));
  const pl::Map m3(edges, cells, 3, parloop_test::random_map(4, 5, 3));
  pl::Dat<double> q(cells), y(edges);
  auto k = pl::kernel("count", [](auto q, auto y) {
    y = 0.0;
    for (int j = 0; j < q.size(); ++j) y += q[j];
  });
  for (int i = 0; i < 100; ++i) pl::par_loop(k, edges, q(pl::READ, m2), y(pl::WRITE));
  CHECK(k.traces() == 1);
  pl::par_loop(k, edges, q(pl::READ, m3), y(pl::WRITE));
  CHECK(k.traces() == 2);
  pl::par_loop(k, edges, q(pl::READ, m2), y(pl::RW));
  CHECK(k.traces() == 3);
  auto copy = k;
  pl::par_loop(copy, edges, q(pl::READ, m3), y(pl::WRITE));
  CHECK(k.traces() == 3);
}

TEST_CASE("symbolic values outside a trace are an error, not a crash", "[dsl][trace]") {
  CHECK_FALSE(pl::dsl::tracing());
  CHECK_THROWS_AS(pl::dsl::recorder(), pl::trace_error);
}

TEST_CASE("kernel_from_source replaces its #include lines by the files, found where the program says",
          "[dsl][source]") {
  const parloop_test::temporary_folder tmp;
  std::filesystem::create_directories(tmp.path / "inc" / "sub");
  std::filesystem::create_directories(tmp.path / "other");
  const auto write = [&](const std::filesystem::path& p, const std::string& text) {
    std::ofstream(tmp.path / p) << text;
  };
  write("inc/a.h", "#pragma once\n#include \"sub/b.h\"\nA_BODY\n");
  write("inc/sub/b.h", "#include \"c.h\"\nB_BODY\n");  // c.h beside b.h comes first
  write("inc/sub/c.h", "C_NEAR\n");
  write("other/c.h", "C_FAR\n");
  write("other/d.h", "D_BODY\n");
  const pl::include_path path{tmp.path / "inc", tmp.path / "other"};
  const std::string source =
      "#include \"a.h\"\n  #  include <a.h>\n/* #include \"missing.h\"\n*/ #include <d.h>\n"
      "void f(double* x) {}\n";
  const std::string text = pl::kernel_from_source("f", source, path).source();
  CHECK(text.find("C_NEAR") != std::string::npos);
  CHECK(text.find("C_FAR") == std::string::npos);
  CHECK(text.find("B_BODY") < text.find("A_BODY"));
  CHECK(text.find("A_BODY") == text.rfind("A_BODY"));  // #pragma once: included once
  CHECK(text.find("missing") != std::string::npos);    // inside a comment: left alone
  CHECK(text.find("D_BODY") == std::string::npos);     // after a comment on its line: no directive
  CHECK(text.find("void f(double* x) {}") != std::string::npos);

  CHECK_THROWS_WITH(pl::kernel_from_source("f", "#include <sub/nothing.h>\nvoid f(double* x) {}", path),
                    Contains("kernel 'f' line 1 includes <sub/nothing.h>, which is not found in the folders named:"));
  CHECK_THROWS_WITH(pl::kernel_from_source("f", "#include SOME_MACRO\nvoid f(double* x) {}", path),
                    Contains("'#include SOME_MACRO' is not #include \"file\" or #include <file>"));
  write("inc/loop.h", "#include \"loop.h\"\n");
  CHECK_THROWS_WITH(pl::kernel_from_source("f", "#include \"loop.h\"\nvoid f(double* x) {}", path),
                    Contains("includes nest deeper than 64"));
  CHECK_THROWS_WITH(pl::kernel_from_source("f", std::string("void f(double* x) {}\0", 21)),
                    Contains("kernel_from_source 'f': the source has a NUL byte at offset 20"));
  write("inc/nul.h", std::string("x\0", 2));
  CHECK_THROWS_WITH(pl::kernel_from_source("f", "#include \"nul.h\"\nvoid f(double* x) {}", path),
                    Contains("nul.h' has a NUL byte at offset 1"));
  CHECK_THROWS_WITH(pl::kernel_from_source("f", "#include \"a.h\"\nvoid f(double* x) {}"),
                    Contains("no folder is named to find: give them, pl::include_path{\"folder\", ...}"));

  // C's math header is the device compilers' own: dropped, unless a named folder has one.
  const std::string math = pl::kernel_from_source("f", "#include <math.h>\nvoid f(double* x) {}").source();
  CHECK(math.find("// kernel 'f' line 1: #include <math.h> (the device compiler's own)") != std::string::npos);
  write("other/math.h", "MY_MATH\n");
  CHECK(pl::kernel_from_source("f", "#include <math.h>\nvoid f(double* x) {}", path).source().find("MY_MATH") !=
        std::string::npos);
}

TEST_CASE("kernel_from_source follows #if, #ifdef and guards to the #include lines a compiler reaches",
          "[dsl][source]") {
  const parloop_test::temporary_folder tmp;
  const auto write = [&](const std::string& name, const std::string& text) { std::ofstream(tmp.path / name) << text; };
  // Two guarded headers that include each other, as C allows: each once, in the preprocessor's order.
  write("a.h", "#ifndef A_H\n#define A_H\n#include \"b.h\"\nint a_body;\n#endif\n");
  write("b.h", "#ifndef B_H /* guard */\n#define B_H\n#include \"a.h\"\nint b_body;\n#endif\n");
  write("level.h", "#define LEVEL (2 * 3 + 1)\n");
  write("seven.h", "SEVEN\n");
  write("other.h", "OTHER\n");
  const pl::include_path path{tmp.path};
  const std::string source =
      "#include \"a.h\"\n#include \"b.h\"\n#include \"level.h\"\n"
      // Decided: a branch not taken reads nothing, not even a file that does not exist.
      "#if 0\n#include \"missing.h\"\n#endif\n"
      "#if LEVEL == 7 && defined(A_H) && !defined NOT_DEFINED\n#include \"seven.h\"\n#elif 1\n#include \"other.h\"\n"
      "#else\n#include \"missing.h\"\n#endif\n"
      // The device compiler's own macros: a header of its own (NVRTC's) is left to it; one a folder
      // has is read, as the compiler may reach it.
      "#ifdef __CUDACC__\n#include <cuda_fp16.h>\n#else\n#include \"other.h\"\n#endif\n"
      "void f(double* x) {}\n";
  const std::string text = pl::kernel_from_source("f", source, path).source();
  const auto count = [&](std::string_view word) {
    std::size_t n = 0;
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  // The first inclusion of each guarded header is its text (b.h's, inside a.h's, comes first); a
  // later one is pasted whole and skipped by the compiler at its guard.
  CHECK(text.find("int b_body;") < text.rfind("int a_body;"));
  CHECK(count("int a_body;") == 2);
  CHECK(count("// end of") == 7);  // a.h, b.h in it, a.h in that (guarded), b.h again, level.h, seven.h, other.h
  CHECK(count("SEVEN") == 1);
  CHECK(count("OTHER") == 1);  // under #ifdef __CUDACC__'s #else; the #elif after a taken #if is not read
  CHECK(text.find("#include \"missing.h\"") != std::string::npos);  // left in place, unread
  CHECK(text.find("#include <cuda_fp16.h>") != std::string::npos);
  // A branch that is taken still needs its header.
  CHECK_THROWS_WITH(
      pl::kernel_from_source("f", "#define ON 1\n#if ON\n#include \"missing.h\"\n#endif\nvoid f(double* x) {}", path),
      Contains("kernel 'f' line 3 includes \"missing.h\", which is not found"));
  // A macro undefined again, or defined in a branch the resolver cannot decide, is not assumed.
  CHECK_THROWS_WITH(
      pl::kernel_from_source("f", "#define ON\n#undef ON\n#ifndef ON\n#include \"missing.h\"\n#endif\n", path),
      Contains("line 4 includes \"missing.h\""));
  CHECK_NOTHROW(pl::kernel_from_source(
      "f",
      "#ifdef __OPENCL_VERSION__\n#define ON\n#endif\n#ifndef ON\n#include \"missing.h\"\n#endif\nvoid f(double* x) {}",
      path));
}

TEST_CASE("a function's definition is taken from a source file with the functions and macros it uses",
          "[dsl][source]") {
  const std::string file = R"(#include <cstdio>
#include "op_seq.h"
#define SCALE(v) ((v) * HALF)
#define HALF 0.5
#define UNUSED 3
static double half(double v) { return SCALE(v); }
double twice(double v) { return 2.0 * v; }
static double unused(double v) { const char* brace = "}"; return v; }
struct point { double x, y; };
const double table[2] = {1.0, 2.0};
void kernel(const double* a, double* b);
namespace {
// kernel: { in a comment
inline void kernel(const double* a, double* b) {
  const int big = 1'000;  /* } */
  *b = half(*a) + big;
}
}
int main() { double b; kernel(nullptr, &b); const char* s = R"x(})x"; return twice(b) > 0; }
)";
  // Not `twice` (main calls it), nor the declaration: the definition, in the file's order.
  CHECK(pl::detail::function_with_needs(file, "kernel") ==
        "#define SCALE(v) ((v) * HALF)\n#define HALF 0.5\nstatic double half(double v) { return SCALE(v); }\n"
        "inline void kernel(const double* a, double* b) {\n  const int big = 1'000;  /* } */\n  *b = half(*a) + "
        "big;\n}\n");
  CHECK(pl::detail::function_with_needs(file, "main")->find("const char* s = R\"x(})x\"; return twice(b) > 0; }") !=
        std::string::npos);
  // Declared, or named only in a comment or a string: not defined.
  CHECK_FALSE(pl::detail::function_with_needs(file, "point"));
  CHECK_FALSE(
      pl::detail::function_with_needs("void f(double* a);\n// void g() {}\nconst char* s = \"void h() {}\";", "f"));
  CHECK_FALSE(pl::detail::function_with_needs("void f(double* a);\n// void g() {}\n", "g"));
  // A file that ends inside the function defines nothing.
  CHECK_FALSE(pl::detail::function_with_needs("void f(double* a) { if (a) {", "f"));
  // Array parameters written as pointers, in every function: comments, two-dimensional arrays and
  // what is not a parameter stay as written.
  CHECK(pl::detail::with_pointer_parameters(
            "void g(int a[3]);\ninline void f(const double *x[2] /* a[2] */, double q[4], double (*y)[3],\n"
            "  int n, double m[2][2]) { int local[2]; g(local); }\nstatic int h(double\tz [ N ]) { return 0; }") ==
        "void g(int a[3]);\ninline void f(const double **x /* a[2] */, double *q, double (*y)[3],\n"
        "  int n, double m[2][2]) { int local[2]; g(local); }\nstatic int h(double\t*z ) { return 0; }");
}

}  // namespace test_dsl

namespace test_dsl {

// A halo's copy is one kernel for every type and dimension, its IR built from its parameters:
// the same IR (so the same source and disk cache entry) as the lambda it replaces traces.
template <class T, int Dim>
void check_halo_copy_ir() {
  const pl::Runtime rt = host();
  const pl::Set over(rt, 3), on(rt, 5);
  const pl::Map m(over, on, 1, std::vector<int>{4, 0, 2});
  pl::Dat<T, Dim> sent(over), dat(on);
  const auto lambda = pl::kernel("parloop_halo_copy", [](auto to, auto from) {
    for (int c = 0; c < Dim; ++c) to[c] = from[c];
  });
  const auto check = [&](const auto& to, const auto& from) {
    const auto params = pl::dsl::params_of(to, from);
    CHECK(pl::detail::halo_copy_ir("parloop_halo_copy", params) == lambda.trace(to, from));
  };
  check(sent(pl::WRITE), dat(pl::READ, m, 0));
  check(dat(pl::WRITE, m, 0), sent(pl::READ));
}

TEST_CASE("std:: before C's math names is taken out of a kernel's source, in code and macros only", "[dsl][source]") {
  using parloop::detail::without_std_math;
  const std::string min_max(parloop::detail::std_min_max);
  CHECK(without_std_math("*m = std::min(*a, *m) + std :: sqrt(x) + std::\tfabs(y);") ==
        min_max + "*m = PL_STD_MIN(*a, *m) + sqrt(x) + fabs(y);");
  CHECK(without_std_math("#define BIG(a, b) std::max(a, b)\nint x = BIG(1, 2) + std::pow(2, 3);") ==
        min_max + "#define BIG(a, b) PL_STD_MAX(a, b)\nint x = BIG(1, 2) + pow(2, 3);");
  CHECK(without_std_math("x = std::floor(y);") == "x = floor(y);");
  // Comments, literals, other std:: names, other namespaces and longer names stay as written.
  const std::string kept =
      "// std::min\nconst char* s = \"std::min\"; std::swap(a, b); mystd::min(a, b); "
      "::std::min(a, b); std::minimum(a); std::numeric_limits<int>::max();";
  CHECK(without_std_math(kept) == kept);
}

TEST_CASE("a halo's copy builds the IR its lambda traces, for any type and dimension", "[dsl][halo]") {
  check_halo_copy_ir<double, 4>();
  check_halo_copy_ir<float, 1>();
  check_halo_copy_ir<std::int32_t, 3>();
  check_halo_copy_ir<std::int64_t, 2>();
}

}  // namespace test_dsl
