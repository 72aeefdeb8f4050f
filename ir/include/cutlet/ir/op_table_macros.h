// Preprocessor helpers that read the operand and attribute lists of ops.def rows: opcode.cpp
// makes the op table's specs with them and ops.h the typed views.
#pragma once

#define CUTLET_PP_PARENS ()
#define CUTLET_PP_EXPAND(...) CUTLET_PP_EXPAND3(CUTLET_PP_EXPAND3(CUTLET_PP_EXPAND3(CUTLET_PP_EXPAND3(__VA_ARGS__))))
#define CUTLET_PP_EXPAND3(...) CUTLET_PP_EXPAND2(CUTLET_PP_EXPAND2(CUTLET_PP_EXPAND2(CUTLET_PP_EXPAND2(__VA_ARGS__))))
#define CUTLET_PP_EXPAND2(...) CUTLET_PP_EXPAND1(CUTLET_PP_EXPAND1(CUTLET_PP_EXPAND1(CUTLET_PP_EXPAND1(__VA_ARGS__))))
#define CUTLET_PP_EXPAND1(...) __VA_ARGS__
#define CUTLET_PP_FOR_EACH(m, ...) __VA_OPT__(CUTLET_PP_EXPAND(CUTLET_PP_FOR_EACH_STEP(m, __VA_ARGS__)))
#define CUTLET_PP_FOR_EACH_STEP(m, first, ...) m(first) __VA_OPT__(CUTLET_PP_FOR_EACH_AGAIN CUTLET_PP_PARENS(m, __VA_ARGS__))
#define CUTLET_PP_FOR_EACH_AGAIN() CUTLET_PP_FOR_EACH_STEP
#define CUTLET_PP_UNPAREN(...) __VA_ARGS__
#define CUTLET_PP_FOR_EACH_EXPANDED(m, ...) CUTLET_PP_FOR_EACH(m, __VA_ARGS__)

/// Applies macro m to each entry of a parenthesized ops.def list: m(req(ptr)), m(opt(mask)), ...
/// An m pastes its argument onto a prefix (m##_req, m##_opt, ...) to tell the entries apart.
#define CUTLET_OP_LIST(m, list) CUTLET_PP_FOR_EACH_EXPANDED(m, CUTLET_PP_UNPAREN list)
