#include "fuzz/simt_minimise.h"

#include "fuzz/simt_evaluator.h"
#include "fuzz/value_range.h"

namespace cutlet::fuzz {
namespace {

/// Walks the edits of a program in a fixed order, counting them; makes edit `target` when
/// it reaches it (target < 0: only counts).
class EditWalk {
 public:
  explicit EditWalk(int target) : target_(target) {}

  void block(std::vector<Stmt>& body) {
    for (std::size_t i = 0; i < body.size() && !done_; ++i) {
      if (hit()) {
        body.erase(body.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
      if (body[i].kind == StmtKind::If) {
        for (auto* branch : {&body[i].body, &body[i].else_body}) {
          if (hit()) {
            std::vector<Stmt> inlined = std::move(*branch);
            body.erase(body.begin() + static_cast<std::ptrdiff_t>(i));
            body.insert(body.begin() + static_cast<std::ptrdiff_t>(i), inlined.begin(), inlined.end());
            return;
          }
        }
      }
      expr(body[i].value);
      block(body[i].body);
      block(body[i].else_body);
    }
  }

  int count() const { return seen_; }
  bool done() const { return done_; }

 private:
  bool hit() {
    if (done_) return false;
    if (seen_++ == target_) done_ = true;
    return done_;
  }

  void expr(Expr& e) {
    if (done_) return;
    if (e.kind != ExprKind::Const) {
      for (auto& a : e.args) {
        if (a.type == e.type && hit()) {
          Expr keep = std::move(a);
          e = std::move(keep);
          return;
        }
      }
      for (std::uint64_t v : {0, 1}) {
        if (hit()) {
          e = is_float(e.type) ? make_float_const(e.type, static_cast<double>(v)) : make_const(e.type, v);
          return;
        }
      }
    }
    for (auto& a : e.args) expr(a);
  }

  int target_;
  int seen_ = 0;
  bool done_ = false;
};

bool defined_on_host(const SimtProgram& p) {
  try {
    return !evaluate_simt(p, random_simt_data(p, p.seed), 0xCD).flags.undefined;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int shrink_step_count(const SimtProgram& p) {
  SimtProgram copy = p;
  EditWalk walk(-1);
  walk.block(copy.body);
  return walk.count();
}

SimtProgram shrink_step(const SimtProgram& p, int k) {
  SimtProgram out = p;
  EditWalk walk(k);
  walk.block(out.body);
  return out;
}

SimtProgram minimise_simt(SimtProgram p, const StillFails& fails, int max_tries) {
  int tries = 0;
  for (bool progress = true; progress && tries < max_tries;) {
    progress = false;
    for (int k = 0; k < shrink_step_count(p) && tries < max_tries; ++k) {
      SimtProgram candidate = shrink_step(p, k);
      if (!defined_on_host(candidate)) continue;
      ++tries;
      if (fails(candidate)) {
        p = std::move(candidate);
        progress = true;
        --k;  // the edits from here on are new ones
      }
    }
  }
  return p;
}

}  // namespace cutlet::fuzz
