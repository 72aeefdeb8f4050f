// The dispatch to each op's rules, the checks every op shares (operand and attribute counts
// and kinds, from its ops.def row) and the helpers of the family files.
#include "rules.h"

#include <bit>

namespace cutlet::ir {
namespace {

struct Rules {
  InferFn infer;
  FoldFn fold;
};

constexpr Rules kRules[] = {
#define OP(Name, mnem, traits, operand_class, operands, attributes, infer, fold) {&infer, &fold},
#include "cutlet/ir/ops.def"
#undef OP
};

const char* kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "an integer";
    case AttrKind::Float: return "a double";
    case AttrKind::Type: return "a type";
    case AttrKind::String: return "a string";
    case AttrKind::Number: return "an integer or a double";
  }
  return "?";
}

bool holds(const Attribute& a, AttrKind k) {
  switch (k) {
    case AttrKind::Int: return std::holds_alternative<std::int64_t>(a);
    case AttrKind::Float: return std::holds_alternative<double>(a);
    case AttrKind::Type: return std::holds_alternative<Type>(a);
    case AttrKind::String: return std::holds_alternative<std::string>(a);
    case AttrKind::Number: return std::holds_alternative<std::int64_t>(a) || std::holds_alternative<double>(a);
  }
  return false;
}

/// The counts and kinds the op's row allows.
void check_row(const OpTypes& t) {
  const OpInfo& info = op_info(t.op);
  const std::size_t n = t.operands.size();
  if (n < info.min_operands || n > info.max_operands) {
    std::string expected = std::to_string(info.min_operands);
    if (info.max_operands == SIZE_MAX) expected = "at least " + expected;
    else if (info.max_operands != info.min_operands) expected += " to " + std::to_string(info.max_operands);
    t.fail("has " + std::to_string(n) + " operands, expected " + expected);
  }
  const std::size_t na = t.attrs.size();
  if (na < info.min_attributes || na > info.max_attributes)
    t.fail("has " + std::to_string(na) + " attributes, expected " + std::to_string(info.min_attributes) +
           (info.max_attributes == info.min_attributes ? std::string()
            : info.max_attributes == SIZE_MAX      ? std::string(" or more")
                                                   : " to " + std::to_string(info.max_attributes)));
  for (std::size_t i = 0; i < na; ++i) {
    const AttrSpec& s = info.attributes[std::min(i, info.attributes.size() - 1)];
    if (!holds(t.attrs[i], s.kind)) t.fail(std::string("attribute '") + s.name + "' must be " + kind_name(s.kind));
  }
}

}  // namespace

std::int64_t OpTypes::int_attr(std::size_t i) const { return std::get<std::int64_t>(attrs[i]); }

Type OpTypes::given_result() const {
  if (given.size() != 1) fail("must have exactly one result");
  return given[0];
}

Type OpTypes::given_pointer(AddressSpace space) const {
  Type r = given_result();
  if (!r.is_pointer() || r.address_space() != space)
    fail(std::string("must produce a ") + address_space_name(space) + " pointer, not " + r.str());
  return r;
}

std::vector<Type> infer_result_types(const OpTypes& t) {
  check_row(t);
  return kRules[static_cast<int>(t.op)].infer(t);
}

std::optional<Folded> fold_op(const FoldInput& in) { return kRules[static_cast<int>(in.op)].fold(in); }

std::optional<Folded> no_fold(const FoldInput&) { return std::nullopt; }
std::vector<Type> infer_nothing(const OpTypes&) { return {}; }

std::string shape_text(std::span<const std::int64_t> shape) {
  std::string r = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) r += (i ? ", " : "") + std::to_string(shape[i]);
  return r + "]";
}

std::optional<std::string> tile_shape_problem(std::span<const std::int64_t> shape) {
  if (shape.empty() || shape.size() > 3) return "tiles have 1 to 3 dimensions, not " + std::to_string(shape.size());
  for (auto e : shape)
    if (e < 1 || !std::has_single_bit(static_cast<std::uint64_t>(e)))
      return "tile extents must be powers of two (pad with a mask), not " + shape_text(shape);
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  if (n > (1 << 20)) return "a tile of " + shape_text(shape) + " has more than 2^20 elements";
  return std::nullopt;
}

void check_tile_shape(const OpTypes& t, std::span<const std::int64_t> shape) {
  if (auto problem = tile_shape_problem(shape)) t.fail(*problem);
}

bool same_shape(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

Type unplaced(Type t) { return t.is_tile() ? t.without_layout() : t; }

bool is_shared_tile(Type t) { return t.is_tile() && t.layout() && t.layout()->is_shared(); }

}  // namespace cutlet::ir
