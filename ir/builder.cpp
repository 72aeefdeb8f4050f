// Builder: type checks, constant folding and scoped deduplication of pure ops.
#include "cutlet/ir/builder.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include "ops/rules.h"

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

std::vector<Type> Builder::infer(Opcode op, std::span<const ValueId> operands, std::span<const Attribute> attrs,
                                 std::span<const Type> given) const {
  std::vector<Type> types;
  for (auto v : operands) types.push_back(f_->type_of(v));
  return infer_types(op, types, attrs, given);
}

std::vector<Type> Builder::infer_types(Opcode op, std::span<const Type> operand_types, std::span<const Attribute> attrs,
                                       std::span<const Type> given) const {
  try {
    return infer_result_types(OpTypes{op, operand_types, attrs, given, f_});
  } catch (const OpRuleError& e) {
    fail(e.what());
  }
}

ValueId Builder::emit(Opcode op, std::vector<ValueId> operands, std::vector<Attribute> attrs, std::optional<Type> given) {
  std::vector<Type> types;
  std::vector<std::optional<Attribute>> constants;
  bool scalar = true;
  for (auto v : operands) {
    types.push_back(f_->type_of(v));
    scalar = scalar && types.back().is_scalar();
    const Instruction* d = f_->def_of(v);
    constants.push_back(d && d->op == Opcode::Const ? std::optional<Attribute>(d->attrs[0]) : std::nullopt);
  }
  std::span<const Type> given_types;
  if (given) given_types = std::span<const Type>(&*given, 1);
  const std::vector<Type> results = infer_types(op, types, attrs, given_types);
  if (results.size() > 1) fail(std::string(mnemonic(op)) + " has several results; build it with its region builder");
  const Type result = results.empty() ? Type::void_type() : results[0];

  // Fold, and put the constant of a commutative op on the right (scalars only: tiles and
  // vectors of constants are made by splats the backend folds).
  if (auto folded = fold_op(FoldInput{op, result, operands, types, constants, attrs})) {
    if (folded->value != kNone) return folded->value;
    if (const auto* i = std::get_if<std::int64_t>(&*folded->constant)) return const_int(result, *i);
    return const_float(result, std::get<double>(*folded->constant));
  }
  if (scalar && operands.size() == 2 && has_trait(op, Commutative) && constants[0] && !constants[1])
    std::swap(operands[0], operands[1]);

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
  return emit(Opcode::Const, {}, {normalize_int(t, v)}, t);
}

ValueId Builder::const_float(Type t, double v) {
  if (!t.is_float()) fail("const_float of non-float type " + t.str());
  if (t == Type::f32()) v = static_cast<double>(static_cast<float>(v));
  // Key on the bits so that -0.0 and 0.0 (and distinct NaNs) stay distinct.
  return emit(Opcode::Const, {}, {v}, t);
}

ValueId Builder::special(SpecialReg r) { return emit(Opcode::Special, {}, {static_cast<std::int64_t>(r)}); }

ValueId Builder::binary(Opcode op, ValueId a, ValueId b) {
  if (op_info(op).operands.size() != 2 || op_info(op).operand_class == OperandClass::Any || op == Opcode::Cmp)
    fail(std::string(mnemonic(op)) + " is not a binary op");
  return emit(op, {a, b});
}

ValueId Builder::unary(Opcode op, ValueId a) {
  if (op != Opcode::Neg && op != Opcode::Not) fail(std::string(mnemonic(op)) + " is not a unary op");
  return emit(op, {a});
}

ValueId Builder::cmp(Predicate p, ValueId a, ValueId b) { return emit(Opcode::Cmp, {a, b}, {static_cast<std::int64_t>(p)}); }

ValueId Builder::select(ValueId c, ValueId a, ValueId b) { return emit(Opcode::Select, {c, a, b}); }

ValueId Builder::cast(Type to, ValueId a) {
  Type from = f_->type_of(a);
  if (from.is_tile() && to.is_scalar()) to = from.with_element(to);
  return emit(Opcode::Cast, {a}, {}, to);
}

ValueId Builder::bitcast(Type to, ValueId a) { return emit(Opcode::Bitcast, {a}, {}, to); }

ValueId Builder::ptr_add(ValueId p, ValueId i) { return emit(Opcode::PtrAdd, {p, i}); }

ValueId Builder::load(ValueId p) { return emit(Opcode::Load, {p}); }

ValueId Builder::field(ValueId r, std::int64_t offset, Type t) { return emit(Opcode::Field, {r}, {offset}, t); }

ValueId Builder::field(ValueId r, std::int64_t offset, Type t, std::int64_t divisibility) {
  if (divisibility <= 1) return field(r, offset, t);
  return emit(Opcode::Field, {r}, {offset, divisibility}, t);
}

void Builder::check_tile_shape(std::span<const std::int64_t> shape) const {
  if (auto problem = tile_shape_problem(shape)) fail(*problem);
}

Type Builder::tile_operand(ValueId x, const char* what) const {
  Type t = f_->type_of(x);
  if (!t.is_tile()) fail(std::string(what) + " of a non-tile " + t.str());
  return t;
}

ValueId Builder::tile_arange(std::int64_t n) {
  const std::int64_t shape[] = {n};
  check_tile_shape(shape);
  return emit(Opcode::TileArange, {}, {}, Type::tile(shape, Type::i32()));
}

ValueId Builder::tile_splat(ValueId x, std::span<const std::int64_t> shape) {
  Type t = f_->type_of(x);
  if (!t.is_scalar()) fail("tile splat of a non-scalar " + t.str());
  check_tile_shape(shape);
  return emit(Opcode::TileSplat, {x}, {}, Type::tile(shape, t));
}

ValueId Builder::tile_broadcast(ValueId x, std::span<const std::int64_t> shape) {
  Type t = tile_operand(x, "tile broadcast");
  if (same_shape(t.shape(), shape)) return x;
  check_tile_shape(shape);
  return emit(Opcode::TileBroadcast, {x}, {}, Type::tile(shape, t.element()));
}

ValueId Builder::tile_expand_dims(ValueId x, int axis) {
  return emit(Opcode::TileExpandDims, {x}, {std::int64_t{axis}});
}

ValueId Builder::tile_permute(ValueId x, std::span<const int> perm) {
  // (Made at once: GCC 12 warns of a maybe-uninitialized string in the variant's move when
  // the attributes are pushed one by one.)
  std::vector<Attribute> attrs(perm.begin(), perm.end());
  Type t = f_->type_of(x);
  bool identity = t.is_tile() && perm.size() == t.shape().size();
  for (std::size_t d = 0; identity && d < perm.size(); ++d) identity = perm[d] == static_cast<int>(d);
  if (identity) return x;
  return emit(Opcode::TilePermute, {x}, std::move(attrs));
}

ValueId Builder::tile_reshape(ValueId x, std::span<const std::int64_t> shape) {
  Type t = tile_operand(x, "reshape");
  check_tile_shape(shape);
  if (same_shape(t.shape(), shape)) return x;
  return emit(Opcode::TileReshape, {x}, {}, Type::tile(shape, t.element()));
}

ValueId Builder::tile_reduce(ReduceKind kind, ValueId x, int axis) {
  return emit(Opcode::TileReduce, {x}, {static_cast<std::int64_t>(kind), std::int64_t{axis}});
}

ValueId Builder::tile_load(ValueId ptr, ValueId offsets, ValueId mask, ValueId other) {
  std::vector<ValueId> ops{ptr, offsets};
  if (mask != kNone) {
    ops.push_back(mask);
    if (other != kNone) ops.push_back(other);
  }
  return emit(Opcode::TileLoad, std::move(ops));
}

ValueId Builder::tile_atomic(AtomicKind kind, ValueId ptr, ValueId offsets, ValueId value, ValueId mask) {
  std::vector<ValueId> ops{ptr, offsets, value};
  if (mask != kNone) ops.push_back(mask);
  return emit(Opcode::TileAtomic, std::move(ops), {static_cast<std::int64_t>(kind)});
}

ValueId Builder::tile_dot(ValueId a, ValueId b, ValueId acc, bool tf32) {
  return emit(Opcode::TileDot, {a, b, acc}, {std::int64_t{tf32 ? 1 : 0}, std::int64_t{0}});
}

void Builder::tile_store(ValueId ptr, ValueId offsets, ValueId value, ValueId mask) {
  std::vector<ValueId> ops{ptr, offsets, value};
  if (mask != kNone) ops.push_back(mask);
  emit(Opcode::TileStore, std::move(ops));
}

void Builder::store(ValueId p, ValueId v) { emit(Opcode::Store, {p, v}); }

Type Builder::pointer_to(Type elem, AddressSpace space, const char* what) const {
  if (!elem.is_scalar()) fail(std::string(what) + " of non-scalar " + elem.str());
  return Type::pointer(elem, space);
}

ValueId Builder::local_alloc(Type elem, std::int64_t count) {
  return emit(Opcode::Alloca, {}, {count}, pointer_to(elem, AddressSpace::Local, "local array"));
}

ValueId Builder::load(ValueId p, CacheHint hint) {
  if (hint == CacheHint::Default) return load(p);
  return emit(Opcode::Load, {p}, {static_cast<std::int64_t>(hint)});
}

ValueId Builder::shared_alloc(Type elem, std::int64_t count) {
  return emit(Opcode::SharedAlloc, {}, {count}, pointer_to(elem, AddressSpace::Shared, "shared array"));
}

ValueId Builder::dynamic_shared(Type elem) {
  return emit(Opcode::DynamicShared, {}, {}, pointer_to(elem, AddressSpace::Shared, "dynamic shared memory"));
}

ValueId Builder::vector_load(ValueId p, int lanes, CacheHint hint) {
  Type tp = f_->type_of(p);
  if (!tp.is_pointer() || tp.element().is_bool()) fail("vector load needs a pointer to numbers, got " + tp.str());
  if (lanes != 2 && lanes != 4 && lanes != 8) fail("vector loads have 2, 4 or 8 lanes, not " + std::to_string(lanes));
  return emit(Opcode::VecLoad, {p}, {static_cast<std::int64_t>(hint)}, Type::vector(tp.element(), lanes));
}

void Builder::vector_store(ValueId p, ValueId v) { emit(Opcode::VecStore, {p, v}); }

ValueId Builder::extract(ValueId v, int lane) { return emit(Opcode::Extract, {v}, {static_cast<std::int64_t>(lane)}); }

ValueId Builder::insert(ValueId v, ValueId x, int lane) {
  return emit(Opcode::Insert, {v, x}, {static_cast<std::int64_t>(lane)});
}

ValueId Builder::splat(ValueId x, int lanes) {
  Type t = f_->type_of(x);
  if (!t.is_scalar() || t.is_bool()) fail("splat of " + t.str());
  if (lanes != 2 && lanes != 4 && lanes != 8) fail("vectors have 2, 4 or 8 lanes, not " + std::to_string(lanes));
  return emit(Opcode::Splat, {x}, {}, Type::vector(t, lanes));
}

ValueId Builder::atomic(AtomicKind kind, ValueId p, std::span<const ValueId> operands, MemoryScope scope,
                        MemoryOrder order) {
  std::vector<ValueId> ops{p};
  ops.insert(ops.end(), operands.begin(), operands.end());
  return emit(Opcode::Atomic, std::move(ops),
              {static_cast<std::int64_t>(kind), static_cast<std::int64_t>(scope), static_cast<std::int64_t>(order)});
}

void Builder::barrier() { emit(Opcode::Barrier, {}); }
void Builder::grid_sync() { emit(Opcode::GridSync, {}); }

ValueId Builder::barrier_reduce(BarrierReduceKind kind, ValueId pred) {
  return emit(Opcode::BarrierReduce, {pred}, {static_cast<std::int64_t>(kind)});
}

void Builder::fence(MemoryScope scope) { emit(Opcode::Fence, {}, {static_cast<std::int64_t>(scope)}); }

void Builder::mbarrier_init(ValueId bar, ValueId count) { emit(Opcode::MbarrierInit, {bar, count}); }

void Builder::mbarrier_arrive(ValueId bar, ValueId tx_bytes) {
  if (tx_bytes == kNone) emit(Opcode::MbarrierArrive, {bar});
  else emit(Opcode::MbarrierArrive, {bar, tx_bytes});
}

ValueId Builder::mbarrier_try_wait(ValueId bar, ValueId phase) { return emit(Opcode::MbarrierTryWait, {bar, phase}); }

void Builder::tma_load(ValueId desc, ValueId dst, ValueId bar, std::span<const ValueId> coords) {
  std::vector<ValueId> operands = {desc, dst, bar};
  operands.insert(operands.end(), coords.begin(), coords.end());
  emit(Opcode::TmaLoad, std::move(operands));
}

void Builder::tma_store(ValueId desc, ValueId src, std::span<const ValueId> coords) {
  std::vector<ValueId> operands = {desc, src};
  operands.insert(operands.end(), coords.begin(), coords.end());
  emit(Opcode::TmaStore, std::move(operands));
}

void Builder::bulk_commit() { emit(Opcode::BulkCommit, {}); }

void Builder::bulk_wait(std::int64_t pending, bool reads_only) {
  emit(Opcode::BulkWait, {}, {pending, static_cast<std::int64_t>(reads_only)});
}

void Builder::fence_proxy_async() { emit(Opcode::FenceProxyAsync, {}); }

ValueId Builder::math(MathFn fn, std::span<const ValueId> operands) {
  return emit(Opcode::Math, std::vector<ValueId>(operands.begin(), operands.end()), {static_cast<std::int64_t>(fn)});
}

ValueId Builder::shuffle(ShuffleKind kind, ValueId value, ValueId lane, ValueId mask) {
  return emit(Opcode::Shuffle, {value, lane, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::vote(VoteKind kind, ValueId pred, ValueId mask) {
  return emit(Opcode::Vote, {pred, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::match(MatchKind kind, ValueId value, ValueId mask) {
  return emit(Opcode::Match, {value, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::redux(ReduxKind kind, ValueId value, ValueId mask) {
  return emit(Opcode::Redux, {value, mask}, {static_cast<std::int64_t>(kind)});
}

ValueId Builder::call(std::shared_ptr<const Function> callee, std::span<const ValueId> args) {
  if (!callee || callee->is_kernel()) fail("call of something that is not a device function");
  std::string name = callee->name();
  f_->add_callee(std::move(callee));
  return emit(Opcode::Call, std::vector<ValueId>(args.begin(), args.end()), {name});
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

ValueId Builder::active_mask() { return emit(Opcode::ActiveMask, {}); }

void Builder::print(const std::string& format, std::span<const ValueId> args) {
  emit(Opcode::Print, std::vector<ValueId>(args.begin(), args.end()), {format});
}

void Builder::assert_(ValueId cond, const std::string& message, const std::string& file, std::int64_t line) {
  std::vector<Attribute> attrs{message, file, line};
  infer(Opcode::Assert, std::span(&cond, 1), attrs, {});
  if (auto c = int_constant(cond); c && *c) return;  // statically true
  emit(Opcode::Assert, {cond}, std::move(attrs));
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
  infer(Opcode::If, std::span(&cond, 1), {}, result_types);
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
  std::vector<ValueId> operands{lb, ub, step};
  operands.insert(operands.end(), init.begin(), init.end());
  const std::vector<Type> carried = infer(Opcode::For, operands, {}, {});
  if (auto s = int_constant(step); s && *s == 0) fail("for with a step of 0 never ends");
  std::vector<Type> arg_types{f_->type_of(lb)};
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
  const std::vector<Attribute> attrs{std::int64_t{axis}};
  const std::vector<Type> results = infer(op, inputs, attrs, {});
  std::vector<Type> elems = elements_of(*f_, inputs);
  std::vector<Type> args = elems;
  args.insert(args.end(), elems.begin(), elems.end());
  InstId id = open_region_op(op, std::vector<ValueId>(inputs.begin(), inputs.end()), 1);
  f_->inst(id).attrs = attrs;
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
  return close_region_op(id, results);
}

}  // namespace cutlet::ir
