// Tuning configurations and spaces: naming, text forms, expansion, pruning and ordering.
#include "cutlet/jit/tuning_space.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "cutlet/error.h"
#include "cutlet/jit/disk_cache_key.h"

namespace cutlet {
namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') return false;
  return true;
}

void check_option_value(const std::string& name, const ConstValue& v) {
  if (name == "opt_level") {
    if (v.kind() != ConstValue::Kind::Int || v.as_int() < 0 || v.as_int() > 3)
      throw Error("cutlet: the compile option opt_level takes 0, 1, 2 or 3, not " + v.str());
  } else if (name == "tile_warps") {
    const bool ok = v.kind() == ConstValue::Kind::Int && v.as_int() >= 1 && v.as_int() <= kMaxTileWarps &&
                    (v.as_int() & (v.as_int() - 1)) == 0;
    if (!ok) throw Error("cutlet: the compile option tile_warps takes 1, 2, 4, 8, 16 or 32, not " + v.str());
  } else if (name == "tile_stages") {
    if (v.kind() != ConstValue::Kind::Int || v.as_int() < kMinTileStages || v.as_int() > kMaxTileStages)
      throw Error("cutlet: the compile option tile_stages takes 2 to 8, not " + v.str());
  } else if (v.kind() != ConstValue::Kind::Bool) {
    throw Error("cutlet: the compile option " + name + " takes true or false, not " + v.str());
  }
}

}  // namespace

Config::Config(std::initializer_list<std::pair<std::string, ConstValue>> entries) {
  for (const auto& [name, value] : entries) {
    if (has(name)) throw Error("cutlet::Config: the name '" + name + "' is given twice");
    set(name, value);
  }
}

Config& Config::set(const std::string& name, ConstValue value) {
  if (!valid_name(name))
    throw Error("cutlet::Config: '" + name + "' is not a valid name (use letters, digits, '_', '.', '-')");
  for (auto& [n, v] : entries_)
    if (n == name) {
      v = value;
      return *this;
    }
  entries_.emplace_back(name, value);
  return *this;
}

bool Config::has(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == name; });
}

const ConstValue& Config::at(std::string_view name) const {
  for (const auto& [n, v] : entries_)
    if (n == name) return v;
  throw Error("cutlet::Config: the configuration " + str() + " has no value named '" + std::string(name) + "'");
}

std::string Config::str() const {
  if (entries_.empty()) return "(empty)";
  std::string s;
  for (const auto& [n, v] : entries_) s += (s.empty() ? "" : " ") + n + "=" + v.str();
  return s;
}

std::string Config::serialize() const {
  std::string s;
  for (const auto& [n, v] : entries_) s += (s.empty() ? "" : " ") + n + "=" + v.serialize();
  return s;
}

Config Config::parse(std::string_view text) {
  Config c;
  std::istringstream in{std::string(text)};
  for (std::string token; in >> token;) {
    const auto eq = token.find('=');
    if (eq == std::string::npos)
      throw Error("cutlet::Config::parse: '" + token + "' is not name=value (in '" + std::string(text) + "')");
    c.set(token.substr(0, eq), ConstValue::parse(token.substr(eq + 1)));
  }
  return c;
}

TuningSpace& TuningSpace::constant(std::string name, std::vector<ConstValue> values) {
  if (std::find(constants_.begin(), constants_.end(), name) == constants_.end()) constants_.push_back(name);
  return launch(std::move(name), std::move(values));
}

TuningSpace& TuningSpace::constants(std::vector<std::string> names) {
  for (auto& n : names)
    if (std::find(constants_.begin(), constants_.end(), n) == constants_.end()) constants_.push_back(std::move(n));
  return *this;
}

TuningSpace& TuningSpace::launch(std::string name, std::vector<ConstValue> values) {
  if (!valid_name(name))
    throw Error("cutlet::TuningSpace: '" + name + "' is not a valid name (use letters, digits, '_', '.', '-')");
  if (values.empty()) throw Error("cutlet::TuningSpace: the axis '" + name + "' has no values");
  for (const auto& a : axes_)
    if (a.name == name) throw Error("cutlet::TuningSpace: the axis '" + name + "' is declared twice");
  axes_.push_back(Axis{std::move(name), std::move(values)});
  return *this;
}

TuningSpace& TuningSpace::option(std::string name, std::vector<ConstValue> values) {
  if (!is_option_name(name))
    throw Error("cutlet::TuningSpace::option: '" + name +
                "' is not a tunable compile option (tunable: opt_level, fma_contraction, flush_denormals, "
                "approx_math, and for tile kernels tile_warps and tile_stages)");
  for (const auto& v : values) check_option_value(name, v);
  return launch(std::move(name), std::move(values));
}

TuningSpace& TuningSpace::configs(std::vector<Config> list) {
  for (auto& c : list) list_.push_back(std::move(c));
  return *this;
}

TuningSpace& TuningSpace::prune(std::function<std::string(const Config&)> reason) {
  prune_ = std::move(reason);
  return *this;
}

TuningSpace& TuningSpace::prune_compiled(std::function<std::string(const Config&, const CompiledKernel&)> reason) {
  prune_compiled_ = std::move(reason);
  return *this;
}

TuningSpace& TuningSpace::cost_model(std::function<double(const Config&)> cost) {
  cost_ = std::move(cost);
  return *this;
}

bool TuningSpace::is_option_name(std::string_view name) {
  return name == "opt_level" || name == "fma_contraction" || name == "flush_denormals" || name == "approx_math" ||
         name == "tile_warps" || name == "tile_stages";
}

std::vector<Config> TuningSpace::expand() const {
  std::vector<Config> out = list_.empty() ? std::vector<Config>{Config{}} : list_;
  for (const auto& axis : axes_) {
    std::vector<Config> next;
    next.reserve(out.size() * axis.values.size());
    for (const auto& c : out)
      for (const auto& v : axis.values) {
        if (c.has(axis.name))
          throw Error("cutlet::TuningSpace: '" + axis.name + "' is both an axis and set in the configuration " +
                      c.str());
        Config d = c;
        d.set(axis.name, v);
        next.push_back(std::move(d));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<Candidate> TuningSpace::candidates() const {
  if (list_.empty() && axes_.empty())
    throw Error("cutlet::TuningSpace: the space is empty; add axes (constant(), launch(), option()) or configs()");
  std::vector<Candidate> out;
  for (auto& c : expand()) {
    for (const auto& name : constants_)
      if (!c.has(name))
        throw Error("cutlet::TuningSpace: the configuration " + c.str() + " has no value for the constant '" + name +
                    "'");
    for (const auto& [name, value] : c.entries())
      if (is_option_name(name)) check_option_value(name, value);
    Candidate k;
    k.config = std::move(c);
    if (prune_) k.pruned = prune_(k.config);
    if (cost_) k.cost = cost_(k.config);
    out.push_back(std::move(k));
  }
  if (cost_)
    std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.cost < b.cost; });
  return out;
}

std::string TuningSpace::fingerprint() const {
  std::string text = "constants:";
  for (const auto& n : constants_) text += " " + n;
  for (const auto& c : expand()) text += "\n" + c.serialize();
  return detail::hex64(detail::checksum64(text));
}

KernelOptions apply_config_options(KernelOptions options, const Config& config) {
  for (const auto& [name, value] : config.entries()) {
    if (name == "opt_level") options.opt_level = static_cast<int>(value.as_int());
    else if (name == "fma_contraction") options.fma_contraction = value.as_bool();
    else if (name == "flush_denormals") options.flush_denormals = value.as_bool();
    else if (name == "approx_math") options.approx_math = value.as_bool();
    else if (name == "tile_warps" || name == "tile_stages") {
      if (options.tile_warps == 0)
        throw Error("cutlet: the tuning option " + name + " applies to tile kernels (made with tile_kernel), and this "
                    "kernel is a per-thread one; tune its block size as a launch parameter instead");
      (name == "tile_warps" ? options.tile_warps : options.tile_stages) = static_cast<int>(value.as_int());
    }
  }
  return options;
}

}  // namespace cutlet
