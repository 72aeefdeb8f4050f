// Builder: type checks, constant folding and scoped deduplication of pure ops.
#include "cutlet/ir/builder.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

namespace cutlet::ir {

/// Pure ops already emitted in one region, keyed by their structure.
struct Builder::Scope {
  std::unordered_map<std::string, ValueId> pure;
};

namespace {

std::string key_of(Opcode op, Type t, const std::vector<ValueId>& operands,
                   const std::vector<Attribute>& attrs) {
  std::string k;
  auto put = [&k](const void* p, std::size_t n) { k.append(static_cast<const char*>(p), n); };
  put(&op, sizeof op);
  const void* tp = t.opaque();
  put(&tp, sizeof tp);
  for (auto v : operands) put(&v, sizeof v);
  for (const auto& a : attrs) {
    char tag = static_cast<char>(a.index());
    put(&tag, 1);
    if (auto* i = std::get_if<std::int64_t>(&a)) put(i, sizeof *i);
    if (auto* d = std::get_if<double>(&a)) put(d, sizeof *d);
    if (auto* ty = std::get_if<Type>(&a)) {
      const void* p = ty->opaque();
      put(&p, sizeof p);
    }
    if (auto* str = std::get_if<std::string>(&a)) {
      std::size_t n = str->size();
      put(&n, sizeof n);
      put(str->data(), n);
    }
  }
  return k;
}

bool operand_class_allows(OperandClass c, Type t) {
  switch (c) {
    case OperandClass::Any: return true;
    case OperandClass::Scalar: return t.is_scalar();
    case OperandClass::Numeric: return t.is_integer() || t.is_float();
    case OperandClass::Integer: return t.is_integer();
    case OperandClass::IntOrBool: return t.is_integer() || t.is_bool();
  }
  return false;
}

const char* operand_class_name(OperandClass c) {
  switch (c) {
    case OperandClass::Any: return "any type";
    case OperandClass::Scalar: return "scalars";
    case OperandClass::Numeric: return "integers and floats";
    case OperandClass::Integer: return "integers";
    case OperandClass::IntOrBool: return "integers and bools";
  }
  return "?";
}

template <class T>
T fold_arith(Opcode op, T a, T b, bool& ok) {
  ok = true;
  switch (op) {
    case Opcode::Add: return a + b;
    case Opcode::Sub: return a - b;
    case Opcode::Mul: return a * b;
    case Opcode::Min: return b < a ? b : a;
    case Opcode::Max: return a < b ? b : a;
    default: ok = false; return T{};
  }
}

}  // namespace

std::int64_t normalize_int(Type t, std::int64_t v) {
  int bits = t.bits();
  if (bits >= 64) return v;
  std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t u = static_cast<std::uint64_t>(v) & mask;
  if (t.is_signed_integer() && (u >> (bits - 1)) & 1) u |= ~mask;
  return static_cast<std::int64_t>(u);
}

Builder::Builder(Function& f) : f_(&f) {
  ip_.push_back({kNone, 0});
  scopes_.push_back(std::make_unique<Scope>());
}
Builder::~Builder() = default;

void Builder::fail(const std::string& what) const {
  std::string msg = "cutlet IR error: " + what;
  if (loc_.known()) msg += " (at " + std::string(loc_.file) + ":" + std::to_string(loc_.line) + ")";
  throw IRError(msg);
}

Region& Builder::current_region() {
  auto ip = ip_.back();
  if (ip.owner == kNone) return f_->body();
  return f_->inst(ip.owner).regions.at(ip.region);
}

ValueId Builder::add_param(Type t, bool noalias) {
  if (!(t.is_scalar() || t.is_pointer() || t.is_record()))
    fail("a kernel parameter must be a scalar, a pointer or a record, not " + t.str());
  if (noalias && !t.is_pointer()) fail("only pointer parameters can be restrict (noalias), not " + t.str());
  if (ip_.size() != 1) fail("parameters can only be added at the top level");
  auto& body = f_->body();
  ValueId v = f_->add_value(t, kNone, static_cast<std::uint32_t>(body.args.size()));
  if (noalias) f_->set_param_noalias(body.args.size(), true);
  body.args.push_back(v);
  return v;
}

ValueId Builder::emit(Opcode op, Type result, std::vector<ValueId> operands,
                      std::vector<Attribute> attrs) {
  bool pure = has_trait(op, Pure);
  std::string key;
  if (pure) {
    key = key_of(op, result, operands, attrs);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = (*it)->pure.find(key);
      if (found != (*it)->pure.end()) return found->second;
    }
  }
  Instruction inst;
  inst.op = op;
  inst.operands = std::move(operands);
  inst.attrs = std::move(attrs);
  inst.loc = loc_;
  InstId id = f_->add_inst(std::move(inst));
  ValueId v = kNone;
  if (!result.is_void()) {
    v = f_->add_value(result, id, 0);
    f_->inst(id).results.push_back(v);
  }
  current_region().body.push_back(id);
  if (pure) scopes_.back()->pure.emplace(std::move(key), v);
  return v;
}

void Builder::emit_terminator(Opcode op, std::vector<ValueId> operands) {
  Instruction inst;
  inst.op = op;
  inst.operands = std::move(operands);
  inst.loc = loc_;
  InstId id = f_->add_inst(std::move(inst));
  current_region().body.push_back(id);
}

std::optional<std::int64_t> Builder::int_constant(ValueId v) const {
  const Instruction* d = f_->def_of(v);
  if (!d || d->op != Opcode::Const) return std::nullopt;
  Type t = f_->type_of(v);
  if (!(t.is_integer() || t.is_bool())) return std::nullopt;
  return d->int_attr();
}

std::optional<double> Builder::float_constant(ValueId v) const {
  const Instruction* d = f_->def_of(v);
  if (!d || d->op != Opcode::Const || !f_->type_of(v).is_float()) return std::nullopt;
  return d->float_attr();
}

ValueId Builder::const_int(Type t, std::int64_t v) {
  if (!(t.is_integer() || t.is_bool())) fail("const_int of non-integer type " + t.str());
  return emit(Opcode::Const, t, {}, {normalize_int(t, v)});
}

ValueId Builder::const_float(Type t, double v) {
  if (!t.is_float()) fail("const_float of non-float type " + t.str());
  if (t == Type::f32()) v = static_cast<double>(static_cast<float>(v));
  // Key on the bits so that -0.0 and 0.0 (and distinct NaNs) stay distinct.
  return emit(Opcode::Const, t, {}, {v});
}

ValueId Builder::special(SpecialReg r) {
  return emit(Opcode::Special, Type::i32(), {}, {static_cast<std::int64_t>(r)});
}

std::optional<ValueId> Builder::fold_binary(Opcode op, ValueId a, ValueId b) {
  Type t = f_->type_of(a);
  auto ia = int_constant(a), ib = int_constant(b);
  if (ia && ib) {
    std::int64_t x = *ia, y = *ib;
    bool is_unsigned = t.is_unsigned_integer() || t.is_bool();
    std::uint64_t ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    if (t.is_bool()) ux &= 1, uy &= 1;
    switch (op) {
      case Opcode::Add: return const_int(t, static_cast<std::int64_t>(ux + uy));
      case Opcode::Sub: return const_int(t, static_cast<std::int64_t>(ux - uy));
      case Opcode::Mul: return const_int(t, static_cast<std::int64_t>(ux * uy));
      case Opcode::Div:
      case Opcode::Rem:
        if (y == 0) return std::nullopt;
        if (is_unsigned) {
          // Unsigned values narrower than 64 bits are stored zero-extended.
          return const_int(t, static_cast<std::int64_t>(op == Opcode::Div ? ux / uy : ux % uy));
        }
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1) return std::nullopt;
        return const_int(t, op == Opcode::Div ? x / y : x % y);
      case Opcode::Min:
        return const_int(t, is_unsigned ? static_cast<std::int64_t>(std::min(ux, uy)) : std::min(x, y));
      case Opcode::Max:
        return const_int(t, is_unsigned ? static_cast<std::int64_t>(std::max(ux, uy)) : std::max(x, y));
      case Opcode::And: return const_int(t, x & y);
      case Opcode::Or: return const_int(t, x | y);
      case Opcode::Xor: return const_int(t, x ^ y);
      case Opcode::Shl:
        if (uy >= static_cast<std::uint64_t>(t.bits())) return std::nullopt;
        return const_int(t, static_cast<std::int64_t>(ux << uy));
      case Opcode::Shr:
        if (uy >= static_cast<std::uint64_t>(t.bits())) return std::nullopt;
        return const_int(t, is_unsigned ? static_cast<std::int64_t>(ux >> uy) : (x >> y));
      default: return std::nullopt;
    }
  }
  auto fa = float_constant(a), fb = float_constant(b);
  if (fa && fb && (t == Type::f32() || t == Type::f64())) {
    bool ok = false;
    double r;
    if (t == Type::f32()) {
      r = fold_arith<float>(op, static_cast<float>(*fa), static_cast<float>(*fb), ok);
      if (!ok && op == Opcode::Div) ok = true, r = static_cast<float>(*fa) / static_cast<float>(*fb);
    } else {
      r = fold_arith<double>(op, *fa, *fb, ok);
      if (!ok && op == Opcode::Div) ok = true, r = *fa / *fb;
    }
    // min/max of NaN follow the non-NaN operand on the GPU; leave those to run time.
    if ((op == Opcode::Min || op == Opcode::Max) && (std::isnan(*fa) || std::isnan(*fb))) ok = false;
    if (ok) return const_float(t, r);
    return std::nullopt;
  }
  // Integer identities (exact for every input; float ones are not, because of -0.0 and NaN).
  if (t.is_integer() || t.is_bool()) {
    auto is = [&](std::optional<std::int64_t> c, std::int64_t v) { return c && *c == normalize_int(t, v); };
    switch (op) {
      case Opcode::Add: case Opcode::Or: case Opcode::Xor:
        if (is(ib, 0)) return a;
        if (is(ia, 0)) return b;
        break;
      case Opcode::Sub: case Opcode::Shl: case Opcode::Shr:
        if (is(ib, 0)) return a;
        break;
      case Opcode::Mul:
        if (is(ib, 1)) return a;
        if (is(ia, 1)) return b;
        if (is(ib, 0) || is(ia, 0)) return const_int(t, 0);
        break;
      case Opcode::Div:
        if (is(ib, 1)) return a;
        break;
      case Opcode::And:
        if (is(ib, -1)) return a;
        if (is(ia, -1)) return b;
        if (is(ib, 0) || is(ia, 0)) return const_int(t, 0);
        break;
      default: break;
    }
    if (t.is_bool() && op == Opcode::Or && (is(ia, 1) || is(ib, 1))) return const_bool(true);
  }
  return std::nullopt;
}

ValueId Builder::binary(Opcode op, ValueId a, ValueId b) {
  const OpInfo& info = op_info(op);
  if (info.arity != 2 || info.rule != TypeRule::SameAsOperands) fail(std::string(info.mnemonic) + " is not a binary op");
  Type ta = f_->type_of(a), tb = f_->type_of(b);
  if (ta != tb) fail(std::string(info.mnemonic) + " needs operands of one type, got " + ta.str() + " and " + tb.str());
  if (!(ta.is_scalar() || ta.is_vector() || ta.is_tile()) || !operand_class_allows(info.operands, ta.scalar_type()))
    fail(std::string(info.mnemonic) + " is defined for " + operand_class_name(info.operands) + ", not " + ta.str());
  if (!ta.is_scalar()) return emit(op, ta, {a, b});
  if (auto folded = fold_binary(op, a, b)) return *folded;
  if (has_trait(op, Commutative) && (int_constant(a) || float_constant(a)) &&
      !(int_constant(b) || float_constant(b)))
    std::swap(a, b);  // canonical form: constant on the right
  return emit(op, ta, {a, b});
}

ValueId Builder::unary(Opcode op, ValueId a) {
  Type t = f_->type_of(a);
  const OpInfo& info = op_info(op);
  if (op != Opcode::Neg && op != Opcode::Not) fail(std::string(info.mnemonic) + " is not a unary op");
  if (!(t.is_scalar() || t.is_vector() || t.is_tile()) || !operand_class_allows(info.operands, t.scalar_type()))
    fail(std::string(info.mnemonic) + " is defined for " + operand_class_name(info.operands) + ", not " + t.str());
  if (t.is_tile()) return emit(op, t, {a});
  if (auto c = int_constant(a)) return const_int(t, op == Opcode::Neg ? static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(*c)) : ~*c);
  if (auto c = float_constant(a); c && op == Opcode::Neg) return const_float(t, -*c);
  return emit(op, t, {a});
}

ValueId Builder::cmp(Predicate p, ValueId a, ValueId b) {
  Type ta = f_->type_of(a), tb = f_->type_of(b);
  if (ta != tb) fail(std::string("cmp ") + predicate_name(p) + " needs operands of one type, got " + ta.str() + " and " + tb.str());
  if (ta.is_tile()) return emit(Opcode::Cmp, Type::tile(ta.shape(), Type::i1()), {a, b}, {static_cast<std::int64_t>(p)});
  if (!ta.is_scalar()) fail("cmp needs scalar or tile operands, not " + ta.str());
  auto ia = int_constant(a), ib = int_constant(b);
  if (ia && ib) {
    bool u = ta.is_unsigned_integer() || ta.is_bool();
    auto x = *ia, y = *ib;
    auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
    bool r = false;
    switch (p) {
      case Predicate::Eq: r = x == y; break;
      case Predicate::Ne: r = x != y; break;
      case Predicate::Lt: r = u ? ux < uy : x < y; break;
      case Predicate::Le: r = u ? ux <= uy : x <= y; break;
      case Predicate::Gt: r = u ? ux > uy : x > y; break;
      case Predicate::Ge: r = u ? ux >= uy : x >= y; break;
    }
    return const_bool(r);
  }
  auto fa = float_constant(a), fb = float_constant(b);
  // f16/bf16 constants are kept unrounded until lowering: compare them at run time.
  if (fa && fb && (ta == Type::f32() || ta == Type::f64())) {
    double x = *fa, y = *fb;
    bool r = false;
    switch (p) {
      case Predicate::Eq: r = x == y; break;
      case Predicate::Ne: r = x != y; break;
      case Predicate::Lt: r = x < y; break;
      case Predicate::Le: r = x <= y; break;
      case Predicate::Gt: r = x > y; break;
      case Predicate::Ge: r = x >= y; break;
    }
    return const_bool(r);
  }
  return emit(Opcode::Cmp, Type::i1(), {a, b}, {static_cast<std::int64_t>(p)});
}

ValueId Builder::select(ValueId c, ValueId a, ValueId b) {
  Type tc = f_->type_of(c), ta = f_->type_of(a), tb = f_->type_of(b);
  if (ta != tb) fail("select needs both choices of one type, got " + ta.str() + " and " + tb.str());
  if (tc.is_tile() || ta.is_tile()) {
    if (tc != Type::tile(ta.shape(), Type::i1()))
      fail("a tile select needs an i1 tile condition of the choices' shape, got " + tc.str() + " for " + ta.str());
    return emit(Opcode::Select, ta, {c, a, b});
  }
  if (!tc.is_bool()) fail("select needs an i1 condition, got " + tc.str());
  if (a == b) return a;
  if (auto k = int_constant(c)) return *k ? a : b;
  return emit(Opcode::Select, ta, {c, a, b});
}

ValueId Builder::cast(Type to, ValueId a) {
  Type from = f_->type_of(a);
  if (from.is_tile() && to.is_scalar()) to = Type::tile(from.shape(), to);
  if (from.is_tile() && to.is_tile() && from.shape().size() == to.shape().size() &&
      std::equal(from.shape().begin(), from.shape().end(), to.shape().begin()))
    return from == to ? a : emit(Opcode::Cast, to, {a}, {});
  if (!from.is_scalar() || !to.is_scalar()) fail("cast converts scalars, not " + from.str() + " to " + to.str());
  if (from == to) return a;
  if (auto c = int_constant(a)) {
    bool u = from.is_unsigned_integer() || from.is_bool();
    if (to.is_bool()) return const_bool(*c != 0);
    if (to.is_integer()) return const_int(to, *c);
    // Round once, directly to the target type, as cvt.rn does.
    if (to == Type::f32())
      return const_float(to, u ? static_cast<float>(static_cast<std::uint64_t>(*c)) : static_cast<float>(*c));
    if (to == Type::f64())
      return const_float(to, u ? static_cast<double>(static_cast<std::uint64_t>(*c)) : static_cast<double>(*c));
  }
  if (auto c = float_constant(a); c && (from == Type::f32() || from == Type::f64())) {
    if (to == Type::f32() || to == Type::f64()) return const_float(to, *c);
    if (to.is_bool()) return const_bool(*c != 0.0);
    // Float to integer: fold only when the value is in range (out of range is undefined).
    double tv = std::trunc(*c);
    if (to.is_signed_integer() && to.bits() <= 32 && tv >= std::ldexp(-1.0, to.bits() - 1) &&
        tv < std::ldexp(1.0, to.bits() - 1))
      return const_int(to, static_cast<std::int64_t>(tv));
    if (to.is_unsigned_integer() && to.bits() <= 32 && tv >= 0 && tv < std::ldexp(1.0, to.bits()))
      return const_int(to, static_cast<std::int64_t>(tv));
  }
  return emit(Opcode::Cast, to, {a}, {});
}

ValueId Builder::bitcast(Type to, ValueId a) {
  Type from = f_->type_of(a);
  if (!from.is_scalar() || !to.is_scalar() || from.bits() != to.bits())
    fail("bitcast needs scalars of equal width, not " + from.str() + " to " + to.str());
  if (from == to) return a;
  return emit(Opcode::Bitcast, to, {a});
}

ValueId Builder::ptr_add(ValueId p, ValueId i) {
  Type tp = f_->type_of(p), ti = f_->type_of(i);
  if (!tp.is_pointer()) fail("ptr_add needs a pointer, got " + tp.str());
  if (!ti.is_integer()) fail("ptr_add needs an integer offset, got " + ti.str());
  if (auto c = int_constant(i); c && *c == 0) return p;
  return emit(Opcode::PtrAdd, tp, {p, i});
}

ValueId Builder::load(ValueId p) {
  Type tp = f_->type_of(p);
  if (!tp.is_pointer()) fail("load needs a pointer, got " + tp.str());
  return emit(Opcode::Load, tp.element(), {p});
}

ValueId Builder::field(ValueId r, std::int64_t offset, Type t) {
  Type tr = f_->type_of(r);
  if (!tr.is_record()) fail("field of a non-record value of type " + tr.str());
  if (!t.is_scalar() && !(t.is_pointer() && t.address_space() == AddressSpace::Global))
    fail("record fields are scalars or global pointers, not " + t.str());
  const std::int64_t bytes = t.is_bool() ? 1 : t.bits() / 8;
  if (offset < 0 || offset + bytes > tr.record_size() || offset % bytes != 0 || bytes > tr.record_align())
    fail("field " + t.str() + " at byte " + std::to_string(offset) + " does not fit aligned inside " + tr.str());
  return emit(Opcode::Field, t, {r}, {offset});
}

ValueId Builder::field(ValueId r, std::int64_t offset, Type t, std::int64_t divisibility) {
  ValueId v = field(r, offset, t);
  if (divisibility <= 1) return v;
  if (!std::has_single_bit(static_cast<std::uint64_t>(divisibility))) fail("divisibility must be a power of two");
  Instruction& inst = f_->inst(f_->value(v).def);
  if (inst.attrs.size() == 1) inst.attrs.push_back(divisibility);
  return v;
}

namespace {
bool same_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}
std::string shape_text(std::span<const std::int64_t> shape) {
  std::string r = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) r += (i ? ", " : "") + std::to_string(shape[i]);
  return r + "]";
}
}  // namespace

void Builder::check_tile_shape(std::span<const std::int64_t> shape) const {
  if (shape.empty() || shape.size() > 3) fail("tiles have 1 to 3 dimensions, not " + std::to_string(shape.size()));
  for (auto e : shape)
    if (e < 1 || !std::has_single_bit(static_cast<std::uint64_t>(e)))
      fail("tile extents must be powers of two (pad with a mask), not " + shape_text(shape));
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  if (n > (1 << 20)) fail("a tile of " + shape_text(shape) + " has more than 2^20 elements");
}

ValueId Builder::tile_arange(std::int64_t n) {
  const std::int64_t shape[] = {n};
  check_tile_shape(shape);
  return emit(Opcode::TileArange, Type::tile(shape, Type::i32()), {});
}

ValueId Builder::tile_splat(ValueId x, std::span<const std::int64_t> shape) {
  Type t = f_->type_of(x);
  if (!t.is_scalar()) fail("tile splat of a non-scalar " + t.str());
  check_tile_shape(shape);
  return emit(Opcode::TileSplat, Type::tile(shape, t), {x});
}

ValueId Builder::tile_broadcast(ValueId x, std::span<const std::int64_t> shape) {
  Type t = f_->type_of(x);
  if (!t.is_tile()) fail("tile broadcast of a non-tile " + t.str());
  if (same_shape(t.shape(), shape)) return x;
  check_tile_shape(shape);
  if (t.shape().size() != shape.size()) fail("broadcast keeps the rank: " + t.str() + " to " + shape_text(shape));
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (t.shape()[d] != shape[d] && t.shape()[d] != 1)
      fail("cannot broadcast " + shape_text(t.shape()) + " to " + shape_text(shape) + ": dimension " +
           std::to_string(d) + " is neither equal nor 1");
  return emit(Opcode::TileBroadcast, Type::tile(shape, t.element()), {x});
}

ValueId Builder::tile_expand_dims(ValueId x, int axis) {
  Type t = f_->type_of(x);
  if (!t.is_tile()) fail("expand_dims of a non-tile " + t.str());
  std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
  if (axis < 0 || axis > static_cast<int>(shape.size()))
    fail("expand_dims axis " + std::to_string(axis) + " is outside 0.." + std::to_string(shape.size()));
  shape.insert(shape.begin() + axis, 1);
  check_tile_shape(shape);
  return emit(Opcode::TileExpandDims, Type::tile(shape, t.element()), {x}, {std::int64_t{axis}});
}

ValueId Builder::tile_permute(ValueId x, std::span<const int> perm) {
  Type t = f_->type_of(x);
  if (!t.is_tile()) fail("permute of a non-tile " + t.str());
  const std::size_t n = t.shape().size();
  std::vector<bool> seen(n, false);
  if (perm.size() != n) fail("a permutation of a rank-" + std::to_string(n) + " tile needs " + std::to_string(n) + " axes");
  std::vector<std::int64_t> shape, axes;
  for (int p : perm) {
    if (p < 0 || p >= static_cast<int>(n) || seen[p]) fail("the axes of a permutation must be 0.." + std::to_string(n - 1) + ", each once");
    seen[p] = true;
    shape.push_back(t.shape()[p]);
    axes.push_back(p);
  }
  // (Made from the axes at once: GCC 12 warns of a maybe-uninitialized string in the
  // variant's move when the attributes are pushed one by one.)
  std::vector<Attribute> attrs(axes.begin(), axes.end());
  bool identity = true;
  for (std::size_t d = 0; d < n; ++d) identity = identity && perm[d] == static_cast<int>(d);
  if (identity) return x;
  return emit(Opcode::TilePermute, Type::tile(shape, t.element()), {x}, std::move(attrs));
}

ValueId Builder::tile_reshape(ValueId x, std::span<const std::int64_t> shape) {
  Type t = f_->type_of(x);
  if (!t.is_tile()) fail("reshape of a non-tile " + t.str());
  check_tile_shape(shape);
  std::int64_t a = 1, b = 1;
  for (auto e : t.shape()) a *= e;
  for (auto e : shape) b *= e;
  if (a != b) fail("cannot reshape " + t.str() + " to " + shape_text(shape) + ": the sizes differ");
  if (same_shape(t.shape(), shape)) return x;
  return emit(Opcode::TileReshape, Type::tile(shape, t.element()), {x});
}

ValueId Builder::tile_reduce(ReduceKind kind, ValueId x, int axis) {
  Type t = f_->type_of(x);
  if (!t.is_tile()) fail("reduction of a non-tile " + t.str());
  const int rank = static_cast<int>(t.shape().size());
  if (axis < 0 || axis >= rank) fail("reduction axis " + std::to_string(axis) + " of a rank-" + std::to_string(rank) + " tile");
  if (t.element().is_bool()) fail("reductions combine numbers, not i1 tiles (cast them first)");
  std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
  shape.erase(shape.begin() + axis);
  Type r = shape.empty() ? t.element() : Type::tile(shape, t.element());
  return emit(Opcode::TileReduce, r, {x}, {static_cast<std::int64_t>(kind), std::int64_t{axis}});
}

ValueId Builder::tile_load(ValueId ptr, ValueId offsets, ValueId mask, ValueId other) {
  Type tp = f_->type_of(ptr), to = f_->type_of(offsets);
  if (!tp.is_pointer() || (tp.address_space() != AddressSpace::Global && tp.address_space() != AddressSpace::Shared))
    fail("tile loads read global or shared memory, not " + tp.str());
  if (!to.is_tile() || to.element() != Type::i32()) fail("tile load offsets must be an i32 tile, not " + to.str());
  std::vector<ValueId> ops{ptr, offsets};
  if (mask != kNone) {
    if (f_->type_of(mask) != Type::tile(to.shape(), Type::i1()))
      fail("a tile load's mask must be an i1 tile of the offsets' shape, not " + f_->type_of(mask).str());
    ops.push_back(mask);
    if (other != kNone) {
      if (f_->type_of(other) != tp.element())
        fail("a tile load's padding must be a " + tp.element().str() + ", not " + f_->type_of(other).str());
      ops.push_back(other);
    }
  }
  return emit(Opcode::TileLoad, Type::tile(to.shape(), tp.element()), std::move(ops));
}

ValueId Builder::tile_atomic(AtomicKind kind, ValueId ptr, ValueId offsets, ValueId value, ValueId mask) {
  Type tp = f_->type_of(ptr), to = f_->type_of(offsets), tv = f_->type_of(value);
  if (!tp.is_pointer() || tp.address_space() != AddressSpace::Global) fail("tile atomics update global memory, not " + tp.str());
  if (!to.is_tile() || to.element() != Type::i32()) fail("tile atomic offsets must be an i32 tile, not " + to.str());
  if (tv != Type::tile(to.shape(), tp.element()))
    fail("a tile atomic through " + tp.str() + " needs a value tile of the offsets' shape, not " + tv.str());
  Type e = tp.element();
  const bool ok = (e.bits() == 32 || e.bits() == 64) && !e.is_bool() &&
                  !(e.is_float() && kind != AtomicKind::Add && kind != AtomicKind::Exchange &&
                    !(e == Type::f32() && (kind == AtomicKind::Min || kind == AtomicKind::Max)));
  if (!ok || kind == AtomicKind::CompareExchange || kind == AtomicKind::Sub)
    fail(std::string("tile atomic ") + atomic_kind_name(kind) + " is not available for " + e.str());
  std::vector<ValueId> ops{ptr, offsets, value};
  if (mask != kNone) {
    if (f_->type_of(mask) != Type::tile(to.shape(), Type::i1()))
      fail("a tile atomic's mask must be an i1 tile of the offsets' shape, not " + f_->type_of(mask).str());
    ops.push_back(mask);
  }
  return emit(Opcode::TileAtomic, tv, std::move(ops), {static_cast<std::int64_t>(kind)});
}

ValueId Builder::tile_dot(ValueId a, ValueId b, ValueId acc, bool tf32) {
  Type ta = f_->type_of(a), tb = f_->type_of(b), tc = f_->type_of(acc);
  if (!ta.is_tile() || !tb.is_tile() || !tc.is_tile() || ta.shape().size() != 2 || tb.shape().size() != 2 ||
      tc.shape().size() != 2)
    fail("dot multiplies 2-D tiles, not " + ta.str() + " and " + tb.str() + " into " + tc.str());
  if (ta.shape()[1] != tb.shape()[0] || tc.shape()[0] != ta.shape()[0] || tc.shape()[1] != tb.shape()[1])
    fail("dot of " + ta.str() + " and " + tb.str() + " into " + tc.str() + ": shapes [M, K] @ [K, N] + [M, N] do not match");
  if (ta.element() != tb.element()) fail("dot needs inputs of one element type, got " + ta.str() + " and " + tb.str());
  Type e = ta.element();
  if (e != Type::f16() && e != Type::bf16() && e != Type::f32())
    fail("dot takes f16, bf16 or f32 (tf32) inputs, not " + e.str());
  if (tc.element() != Type::f32()) fail("dot accumulates in f32, not " + tc.element().str());
  if (ta.shape()[1] < 16) fail("dot needs K >= 16, not " + std::to_string(ta.shape()[1]));
  return emit(Opcode::TileDot, tc, {a, b, acc}, {std::int64_t{tf32 ? 1 : 0}, std::int64_t{0}});
}

void Builder::tile_store(ValueId ptr, ValueId offsets, ValueId value, ValueId mask) {
  Type tp = f_->type_of(ptr), to = f_->type_of(offsets), tv = f_->type_of(value);
  if (!tp.is_pointer() || (tp.address_space() != AddressSpace::Global && tp.address_space() != AddressSpace::Shared))
    fail("tile stores write global or shared memory, not " + tp.str());
  if (!to.is_tile() || to.element() != Type::i32()) fail("tile store offsets must be an i32 tile, not " + to.str());
  if (tv != Type::tile(to.shape(), tp.element()))
    fail("a tile store through " + tp.str() + " at " + to.str() + " needs a tile of that shape and element, not " + tv.str());
  std::vector<ValueId> ops{ptr, offsets, value};
  if (mask != kNone) {
    if (f_->type_of(mask) != Type::tile(to.shape(), Type::i1()))
      fail("a tile store's mask must be an i1 tile of the offsets' shape, not " + f_->type_of(mask).str());
    ops.push_back(mask);
  }
  emit(Opcode::TileStore, Type::void_type(), std::move(ops));
}

void Builder::store(ValueId p, ValueId v) {
  Type tp = f_->type_of(p), tv = f_->type_of(v);
  if (!tp.is_pointer()) fail("store needs a pointer, got " + tp.str());
  if (tp.element() != tv) fail("store of " + tv.str() + " through " + tp.str());
  emit(Opcode::Store, Type::void_type(), {p, v});
}

ValueId Builder::local_alloc(Type elem, std::int64_t count) {
  if (!elem.is_scalar()) fail("alloca of non-scalar " + elem.str());
  if (count < 1) fail("a local array needs at least one element, not " + std::to_string(count));
  return emit(Opcode::Alloca, Type::pointer(elem, AddressSpace::Local), {}, {count});
}

ValueId Builder::load(ValueId p, CacheHint hint) {
  if (hint == CacheHint::Default) return load(p);
  Type tp = f_->type_of(p);
  if (!tp.is_pointer()) fail("load needs a pointer, got " + tp.str());
  if (tp.address_space() != AddressSpace::Global) fail("cache hints apply to global memory loads only");
  return emit(Opcode::Load, tp.element(), {p}, {static_cast<std::int64_t>(hint)});
}

ValueId Builder::shared_alloc(Type elem, std::int64_t count) {
  if (!elem.is_scalar()) fail("shared array of non-scalar " + elem.str());
  if (count < 1) fail("a shared array needs at least one element, not " + std::to_string(count));
  return emit(Opcode::SharedAlloc, Type::pointer(elem, AddressSpace::Shared), {}, {count});
}

ValueId Builder::dynamic_shared(Type elem) {
  if (!elem.is_scalar()) fail("dynamic shared memory of non-scalar " + elem.str());
  return emit(Opcode::DynamicShared, Type::pointer(elem, AddressSpace::Shared), {}, {});
}

ValueId Builder::vector_load(ValueId p, int lanes, CacheHint hint) {
  Type tp = f_->type_of(p);
  if (!tp.is_pointer() || tp.element().is_bool()) fail("vector load needs a pointer to numbers, got " + tp.str());
  if (lanes != 2 && lanes != 4 && lanes != 8) fail("vector loads have 2, 4 or 8 lanes, not " + std::to_string(lanes));
  if (tp.element().bits() * lanes > 128) fail("vector loads move at most 16 bytes, not " + std::to_string(tp.element().bits() * lanes / 8));
  return emit(Opcode::VecLoad, Type::vector(tp.element(), lanes), {p}, {static_cast<std::int64_t>(hint)});
}

void Builder::vector_store(ValueId p, ValueId v) {
  Type tp = f_->type_of(p), tv = f_->type_of(v);
  if (!tp.is_pointer() || !tv.is_vector() || tp.element() != tv.element())
    fail("vector store of " + tv.str() + " through " + tp.str());
  emit(Opcode::VecStore, Type::void_type(), {p, v});
}

ValueId Builder::extract(ValueId v, int lane) {
  Type t = f_->type_of(v);
  if (!t.is_vector() || lane < 0 || lane >= t.lanes()) fail("extract of lane " + std::to_string(lane) + " from " + t.str());
  return emit(Opcode::Extract, t.element(), {v}, {static_cast<std::int64_t>(lane)});
}

ValueId Builder::insert(ValueId v, ValueId x, int lane) {
  Type t = f_->type_of(v);
  if (!t.is_vector() || lane < 0 || lane >= t.lanes() || f_->type_of(x) != t.element())
    fail("insert of " + f_->type_of(x).str() + " into lane " + std::to_string(lane) + " of " + t.str());
  return emit(Opcode::Insert, t, {v, x}, {static_cast<std::int64_t>(lane)});
}

ValueId Builder::splat(ValueId x, int lanes) {
  Type t = f_->type_of(x);
  if (!t.is_scalar() || t.is_bool()) fail("splat of " + t.str());
  return emit(Opcode::Splat, Type::vector(t, lanes), {x}, {});
}

ValueId Builder::atomic(AtomicKind kind, ValueId p, std::span<const ValueId> operands, MemoryScope scope,
                        MemoryOrder order) {
  Type tp = f_->type_of(p);
  if (!tp.is_pointer() || (tp.address_space() != AddressSpace::Global && tp.address_space() != AddressSpace::Shared))
    fail(std::string("atomic ") + atomic_kind_name(kind) + " needs a global or shared pointer, got " + tp.str());
  Type t = tp.element();
  std::size_t want = kind == AtomicKind::CompareExchange ? 2 : 1;
  if (operands.size() != want) fail(std::string("atomic ") + atomic_kind_name(kind) + " takes " + std::to_string(want) + " value(s)");
  for (auto v : operands)
    if (f_->type_of(v) != t) fail(std::string("atomic ") + atomic_kind_name(kind) + " of " + f_->type_of(v).str() + " on " + tp.str());
  bool ok;
  if (t.is_integer()) {
    ok = t.bits() == 32 || t.bits() == 64;
  } else if (t.is_float() && t.bits() >= 32) {
    ok = kind == AtomicKind::Add || kind == AtomicKind::Sub || kind == AtomicKind::Exchange ||
         kind == AtomicKind::CompareExchange;
  } else if (t.is_float()) {
    ok = kind == AtomicKind::Add || kind == AtomicKind::CompareExchange;
  } else {
    ok = false;
  }
  if (!ok)
    fail(std::string("atomic ") + atomic_kind_name(kind) + " is not available for " + t.str() +
         ": integer atomics take 32- and 64-bit types; float atomics are add, sub, exchange and "
         "compare-exchange on f32/f64, and add or compare-exchange on f16/bf16");
  std::vector<ValueId> ops{p};
  ops.insert(ops.end(), operands.begin(), operands.end());
  return emit(Opcode::Atomic, t, std::move(ops),
              {static_cast<std::int64_t>(kind), static_cast<std::int64_t>(scope), static_cast<std::int64_t>(order)});
}

void Builder::barrier() { emit(Opcode::Barrier, Type::void_type(), {}); }
void Builder::grid_sync() { emit(Opcode::GridSync, Type::void_type(), {}); }

ValueId Builder::barrier_reduce(BarrierReduceKind kind, ValueId pred) {
  if (!f_->type_of(pred).is_bool()) fail("barrier reductions take an i1 predicate, not " + f_->type_of(pred).str());
  return emit(Opcode::BarrierReduce, kind == BarrierReduceKind::Count ? Type::i32() : Type::i1(), {pred},
              {static_cast<std::int64_t>(kind)});
}

void Builder::fence(MemoryScope scope) { emit(Opcode::Fence, Type::void_type(), {}, {static_cast<std::int64_t>(scope)}); }

ValueId Builder::math(MathFn fn, std::span<const ValueId> operands) {
  const MathInfo& m = math_info(fn);
  if (operands.size() != static_cast<std::size_t>(m.arity))
    fail(std::string(m.name) + " takes " + std::to_string(m.arity) + " operands, not " + std::to_string(operands.size()));
  Type t = f_->type_of(operands[0]);
  for (auto v : operands)
    if (f_->type_of(v) != t) fail(std::string(m.name) + " needs operands of one type, got " + t.str() + " and " + f_->type_of(v).str());
  if (!math_implementation(fn, t.scalar_type()) || !(t.is_scalar() || t.is_tile()))
    fail(std::string(m.name) + " is not defined for " + t.str());
  Type r = math_result_type(fn, t.scalar_type());
  if (t.is_tile()) r = Type::tile(t.shape(), r);
  return emit(Opcode::Math, r, std::vector<ValueId>(operands.begin(), operands.end()),
              {static_cast<std::int64_t>(fn)});
}

ValueId Builder::shuffle(ShuffleKind kind, ValueId value, ValueId lane, ValueId mask) {
  Type t = f_->type_of(value);
  if (!t.is_scalar() || (t.bits() != 32 && t.bits() != 64)) fail("shuffles move 32- or 64-bit scalars, not " + t.str());
  if (f_->type_of(lane) != Type::i32()) fail("a shuffle's lane/delta is an i32, not " + f_->type_of(lane).str());
  if (f_->type_of(mask) != Type::u32()) fail("a shuffle's mask is a u32, not " + f_->type_of(mask).str());
  return emit(Opcode::Shuffle, t, {value, lane, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::vote(VoteKind kind, ValueId pred, ValueId mask) {
  if (!f_->type_of(pred).is_bool()) fail("a vote takes an i1 predicate, not " + f_->type_of(pred).str());
  if (f_->type_of(mask) != Type::u32()) fail("a vote's mask is a u32");
  return emit(Opcode::Vote, kind == VoteKind::Ballot ? Type::u32() : Type::i1(), {pred, mask},
              {static_cast<std::int64_t>(kind)});
}

ValueId Builder::match(MatchKind kind, ValueId value, ValueId mask) {
  Type t = f_->type_of(value);
  if (!t.is_scalar() || (t.bits() != 32 && t.bits() != 64)) fail("match compares 32- or 64-bit scalars, not " + t.str());
  if (f_->type_of(mask) != Type::u32()) fail("a match's mask is a u32");
  return emit(Opcode::Match, Type::u32(), {value, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::redux(ReduxKind kind, ValueId value, ValueId mask) {
  Type t = f_->type_of(value);
  if (t != Type::i32() && t != Type::u32()) fail("warp reductions (redux.sync) take i32 or u32, not " + t.str());
  if (f_->type_of(mask) != Type::u32()) fail("a warp reduction's mask is a u32");
  return emit(Opcode::Redux, t, {value, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::call(std::shared_ptr<const Function> callee, std::span<const ValueId> args) {
  if (!callee || callee->is_kernel()) fail("call of something that is not a device function");
  auto params = callee->params();
  if (params.size() != args.size())
    fail("device function @" + callee->name() + " takes " + std::to_string(params.size()) + " arguments, not " +
         std::to_string(args.size()));
  for (std::size_t i = 0; i < args.size(); ++i)
    if (f_->type_of(args[i]) != callee->type_of(params[i]))
      fail("argument " + std::to_string(i + 1) + " of device function @" + callee->name() + " is " +
           f_->type_of(args[i]).str() + ", the parameter " + callee->type_of(params[i]).str());
  std::string name = callee->name();
  Type ret = callee->return_type();
  f_->add_callee(std::move(callee));
  return emit(Opcode::Call, ret, std::vector<ValueId>(args.begin(), args.end()), {name});
}

void Builder::finish_device_function(ValueId value) {
  if (ip_.size() != 1) fail("a device function returns from its body, not from inside a region");
  if (value == kNone) {
    f_->set_device_function(Type::void_type());
    emit_terminator(Opcode::Yield, {});
  } else {
    f_->set_device_function(f_->type_of(value));
    emit_terminator(Opcode::Yield, {value});
  }
}

ValueId Builder::active_mask() { return emit(Opcode::ActiveMask, Type::u32(), {}, {}); }

void Builder::print(const std::string& format, std::span<const ValueId> args) {
  for (auto a : args)
    if (!f_->type_of(a).is_scalar() && !f_->type_of(a).is_pointer()) fail("printf arguments are scalars or pointers, not " + f_->type_of(a).str());
  emit(Opcode::Print, Type::void_type(), std::vector<ValueId>(args.begin(), args.end()), {format});
}

void Builder::assert_(ValueId cond, const std::string& message, const std::string& file, std::int64_t line) {
  if (!f_->type_of(cond).is_bool()) fail("assert takes an i1 condition, not " + f_->type_of(cond).str());
  if (auto c = int_constant(cond); c && *c) return;  // statically true
  emit(Opcode::Assert, Type::void_type(), {cond}, {message, file, line});
}

InstId Builder::open_region_op(Opcode op, std::vector<ValueId> operands, int num_regions) {
  Instruction inst;
  inst.op = op;
  inst.operands = std::move(operands);
  inst.regions.resize(num_regions);
  inst.loc = loc_;
  return f_->add_inst(std::move(inst));
}

std::vector<ValueId> Builder::build_region(InstId owner, std::uint32_t index,
                                           std::span<const Type> arg_types, const BodyFn& fn) {
  std::vector<ValueId> args;
  for (std::uint32_t i = 0; i < arg_types.size(); ++i) {
    ValueId v = f_->add_value(arg_types[i], kNone, i);
    args.push_back(v);
  }
  f_->inst(owner).regions.at(index).args = args;
  ip_.push_back({owner, index});
  scopes_.push_back(std::make_unique<Scope>());
  std::vector<ValueId> yields;
  try {
    if (fn) yields = fn(args);
  } catch (...) {
    ip_.pop_back();
    scopes_.pop_back();
    throw;
  }
  return yields;  // the caller emits the terminator, then calls finish
}

std::vector<ValueId> Builder::close_region_op(InstId id, std::span<const Type> result_types) {
  current_region().body.push_back(id);
  std::vector<ValueId> results;
  for (std::uint32_t i = 0; i < result_types.size(); ++i) {
    ValueId v = f_->add_value(result_types[i], id, i);
    f_->inst(id).results.push_back(v);
    results.push_back(v);
  }
  return results;
}

namespace {
std::string types_str(const Function& f, std::span<const ValueId> vs) {
  std::string s = "(";
  for (std::size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + f.type_of(vs[i]).str();
  return s + ")";
}
std::string types_str(std::span<const Type> ts) {
  std::string s = "(";
  for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}
bool same_types(const Function& f, std::span<const ValueId> vs, std::span<const Type> ts) {
  if (vs.size() != ts.size()) return false;
  for (std::size_t i = 0; i < vs.size(); ++i)
    if (f.type_of(vs[i]) != ts[i]) return false;
  return true;
}
}  // namespace

std::vector<ValueId> Builder::if_(ValueId cond, std::span<const Type> result_types,
                                  const BodyFn& then_fn, const BodyFn& else_fn) {
  if (!f_->type_of(cond).is_bool()) fail("if needs an i1 condition, got " + f_->type_of(cond).str());
  if (!result_types.empty() && !else_fn) fail("an if with results needs an else branch");
  InstId id = open_region_op(Opcode::If, {cond}, 2);
  for (std::uint32_t r = 0; r < 2; ++r) {
    auto yields = build_region(id, r, {}, r == 0 ? then_fn : else_fn);
    if (!same_types(*f_, yields, result_types)) {
      ip_.pop_back();
      scopes_.pop_back();
      fail(std::string("the ") + (r == 0 ? "then" : "else") + " branch of an if yields " +
           types_str(*f_, yields) + " but the if has results " + types_str(result_types));
    }
    emit_terminator(Opcode::Yield, yields);
    ip_.pop_back();
    scopes_.pop_back();
  }
  return close_region_op(id, result_types);
}

std::vector<ValueId> Builder::for_(ValueId lb, ValueId ub, ValueId step, std::span<const ValueId> init,
                                   const BodyFn& body) {
  Type t = f_->type_of(lb);
  if (!t.is_integer() || f_->type_of(ub) != t || f_->type_of(step) != t)
    fail("for needs bounds and step of one integer type, got " + f_->type_of(lb).str() + ", " +
         f_->type_of(ub).str() + ", " + f_->type_of(step).str());
  if (auto s = int_constant(step); s && *s == 0) fail("for with a step of 0 never ends");
  std::vector<ValueId> operands{lb, ub, step};
  operands.insert(operands.end(), init.begin(), init.end());
  std::vector<Type> carried;
  for (auto v : init) carried.push_back(f_->type_of(v));
  std::vector<Type> arg_types{t};
  arg_types.insert(arg_types.end(), carried.begin(), carried.end());
  InstId id = open_region_op(Opcode::For, std::move(operands), 1);
  auto yields = build_region(id, 0, arg_types, body);
  if (!same_types(*f_, yields, carried)) {
    ip_.pop_back();
    scopes_.pop_back();
    fail("a for body yields " + types_str(*f_, yields) + " but carries " + types_str(carried));
  }
  emit_terminator(Opcode::Yield, yields);
  ip_.pop_back();
  scopes_.pop_back();
  return close_region_op(id, carried);
}

std::vector<ValueId> Builder::while_(std::span<const ValueId> init, const BodyFn& cond_fn,
                                     const BodyFn& body) {
  std::vector<Type> carried;
  for (auto v : init) carried.push_back(f_->type_of(v));
  InstId id = open_region_op(Opcode::While, std::vector<ValueId>(init.begin(), init.end()), 2);
  auto cond = build_region(id, 0, carried, cond_fn);
  if (cond.empty() || !f_->type_of(cond[0]).is_bool()) {
    ip_.pop_back();
    scopes_.pop_back();
    fail("a while condition must produce an i1 first");
  }
  std::vector<Type> forwarded;
  for (std::size_t i = 1; i < cond.size(); ++i) forwarded.push_back(f_->type_of(cond[i]));
  emit_terminator(Opcode::Condition, cond);
  ip_.pop_back();
  scopes_.pop_back();
  auto yields = build_region(id, 1, forwarded, body);
  if (!same_types(*f_, yields, carried)) {
    ip_.pop_back();
    scopes_.pop_back();
    fail("a while body yields " + types_str(*f_, yields) + " but carries " + types_str(carried));
  }
  emit_terminator(Opcode::Yield, yields);
  ip_.pop_back();
  scopes_.pop_back();
  return close_region_op(id, forwarded);
}

namespace {
std::vector<Type> elements_of(const Function& f, std::span<const ValueId> inputs) {
  std::vector<Type> r;
  for (auto v : inputs) r.push_back(f.type_of(v).element());
  return r;
}
}  // namespace

std::vector<ValueId> Builder::tile_reduce_with(std::span<const ValueId> inputs, int axis, const BodyFn& combine) {
  return tile_combine(Opcode::TileReduceWith, inputs, axis, combine);
}
std::vector<ValueId> Builder::tile_scan(std::span<const ValueId> inputs, int axis, const BodyFn& combine) {
  return tile_combine(Opcode::TileScan, inputs, axis, combine);
}

std::vector<ValueId> Builder::tile_combine(Opcode op, std::span<const ValueId> inputs, int axis, const BodyFn& combine) {
  const char* what = op == Opcode::TileScan ? "scan" : "reduction";
  if (inputs.empty()) fail(std::string("a ") + what + " needs at least one tile");
  Type t0 = f_->type_of(inputs[0]);
  for (auto v : inputs) {
    Type t = f_->type_of(v);
    if (!t.is_tile() || !same_shape(t.shape(), t0.shape()))
      fail(std::string("the tiles of a ") + what + " must have one shape, got " + t0.str() + " and " + t.str());
  }
  const int rank = static_cast<int>(t0.shape().size());
  if (axis < 0 || axis >= rank) fail(std::string(what) + " axis " + std::to_string(axis) + " of a rank-" + std::to_string(rank) + " tile");
  std::vector<Type> elems = elements_of(*f_, inputs);
  std::vector<Type> args = elems;
  args.insert(args.end(), elems.begin(), elems.end());
  InstId id = open_region_op(op, std::vector<ValueId>(inputs.begin(), inputs.end()), 1);
  f_->inst(id).attrs.push_back(std::int64_t{axis});
  auto yields = build_region(id, 0, args, combine);
  if (!same_types(*f_, yields, elems)) {
    ip_.pop_back();
    scopes_.pop_back();
    fail(std::string("the combine function of a ") + what + " returns " + types_str(*f_, yields) + " but must return " +
         types_str(elems));
  }
  emit_terminator(Opcode::Yield, yields);
  ip_.pop_back();
  scopes_.pop_back();
  std::vector<Type> results;
  for (auto v : inputs) {
    Type t = f_->type_of(v);
    if (op == Opcode::TileScan) {
      results.push_back(t);
      continue;
    }
    std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
    shape.erase(shape.begin() + axis);
    results.push_back(shape.empty() ? t.element() : Type::tile(shape, t.element()));
  }
  return close_region_op(id, results);
}

}  // namespace cutlet::ir
