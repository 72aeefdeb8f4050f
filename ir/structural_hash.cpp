// Structural hash: a walk in print order, numbering values as they appear.
#include "cutlet/ir/structural_hash.h"

#include <bit>
#include <unordered_map>

#include "cutlet/ir/hash.h"

namespace cutlet::ir {
namespace {

class StructuralHasher {
 public:
  StructuralHasher(const Function& f, bool locations) : f_(f), locations_(locations) {}

  std::uint64_t run() {
    h_.add(f_.name());
    h_.add(f_.is_kernel() ? 1u : 0u);
    h_.add(f_.return_type().structural_hash());
    for (const auto& c : f_.callees()) h_.add(StructuralHasher(*c, locations_).run());
    for (std::size_t i = 0; i < f_.params().size(); ++i) h_.add(f_.param_noalias(i) ? 1u : 0u);
    h_.add(static_cast<std::uint64_t>(f_.tile_warps()));
    h_.add(static_cast<std::uint64_t>(f_.tile_stages()));
    h_.add(static_cast<std::uint64_t>(f_.tile_wgmma()));
    h_.add(static_cast<std::uint64_t>(f_.host_target()));
    region(f_.body());
    return h_.value();
  }

 private:
  void value(ValueId v) {
    auto [it, inserted] = numbers_.try_emplace(v, numbers_.size());
    h_.add(it->second);
    if (inserted) h_.add(f_.type_of(v).structural_hash());
  }

  void region(const Region& r) {
    h_.add(0x5245474eull);  // region marker
    h_.add(r.args.size());
    for (auto a : r.args) value(a);
    h_.add(r.body.size());
    for (InstId id : r.body) instruction(f_.inst(id));
  }

  void instruction(const Instruction& inst) {
    h_.add(static_cast<std::uint64_t>(inst.op));
    if (locations_) {
      h_.add(inst.loc.known() ? std::string_view(inst.loc.file) : std::string_view());
      h_.add(static_cast<std::uint64_t>(inst.loc.line));
    }
    h_.add(inst.operands.size());
    for (auto v : inst.operands) value(v);
    h_.add(inst.attrs.size());
    for (const auto& a : inst.attrs) {
      h_.add(a.index());
      if (auto* i = std::get_if<std::int64_t>(&a)) h_.add(static_cast<std::uint64_t>(*i));
      if (auto* d = std::get_if<double>(&a)) h_.add(std::bit_cast<std::uint64_t>(*d));
      if (auto* t = std::get_if<Type>(&a)) h_.add(t->structural_hash());
      if (auto* str = std::get_if<std::string>(&a)) h_.add(*str);
    }
    h_.add(inst.regions.size());
    for (const auto& r : inst.regions) region(r);
    h_.add(inst.results.size());
    for (auto v : inst.results) value(v);
  }

  const Function& f_;
  bool locations_;
  Hasher h_;
  std::unordered_map<ValueId, std::uint64_t> numbers_;
};

}  // namespace

std::uint64_t structural_hash(const Function& f, bool with_locations) {
  return StructuralHasher(f, with_locations).run();
}

}  // namespace cutlet::ir
