// expect: a par_loop takes at most 64 arguments
// SPDX-License-Identifier: MIT
#include <parloop/parloop.hpp>
namespace pl = parloop;
int main() {
  pl::Runtime rt = pl::Runtime::open();
  pl::Set s(rt, 4);
  pl::Dat<double> x(s);
  auto k = pl::kernel(
      "k", [](auto a0, auto a1, auto a2, auto a3, auto a4, auto a5, auto a6, auto a7, auto a8, auto a9, auto a10,
              auto a11, auto a12, auto a13, auto a14, auto a15, auto a16, auto a17, auto a18, auto a19, auto a20,
              auto a21, auto a22, auto a23, auto a24, auto a25, auto a26, auto a27, auto a28, auto a29, auto a30,
              auto a31, auto a32, auto a33, auto a34, auto a35, auto a36, auto a37, auto a38, auto a39, auto a40,
              auto a41, auto a42, auto a43, auto a44, auto a45, auto a46, auto a47, auto a48, auto a49, auto a50,
              auto a51, auto a52, auto a53, auto a54, auto a55, auto a56, auto a57, auto a58, auto a59, auto a60,
              auto a61, auto a62, auto a63, auto a64) { static_cast<void>(a0); });
  pl::par_loop(k, s, x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ), x(pl::READ),
               x(pl::READ), x(pl::READ));
}
