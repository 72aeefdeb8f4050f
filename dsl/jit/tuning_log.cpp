// Trial logs (see tuning_log.h): CSV and JSON text, and the files runs are written to.
#include "cutlet/jit/tuning_log.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "cutlet/log.h"

namespace cutlet {
namespace {

/// The configuration names of every report's trials, in order of first appearance.
std::vector<std::string> config_names(const std::vector<TuneReport>& reports) {
  std::vector<std::string> names;
  for (const auto& r : reports)
    for (const auto& t : r.trials)
      for (const auto& [name, value] : t.config.entries())
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

/// The key on one line: its line breaks as "; ", none at the end.
std::string one_line(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '\n' ? std::string("; ") : std::string(1, c);
  while (out.size() >= 2 && out.compare(out.size() - 2, 2, "; ") == 0) out.resize(out.size() - 2);
  return out;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool timed(const TuneTrial& t) { return t.status == TuneTrial::Status::Timed; }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string json_value(const ConstValue& v) {
  if (v.kind() == ConstValue::Kind::Float && !std::isfinite(v.as_double())) return json_string(v.str());
  return v.str();  // integers, finite floats, true and false are JSON as they print
}

std::string json_number_or_null(bool present, double v) {
  return present && std::isfinite(v) ? number(v) : std::string("null");
}

bool is_json(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".json";
}

/// The runs logged to each file by this process.
struct Registry {
  std::mutex mu;
  std::map<std::string, std::vector<TuneReport>> runs;
  std::set<std::string> warned;
};
Registry& registry() {
  static auto* r = new Registry();  // outlives static destructors: tuning may run during exit
  return *r;
}

}  // namespace

std::string trial_log_csv(const std::vector<TuneReport>& reports) {
  const std::vector<std::string> names = config_names(reports);
  std::string out = "tuner,key,trial";
  for (const auto& n : names) out += "," + csv_field(n);
  out += ",status,median_ms,min_ms,max_ms,compile_ms,registers,best,error\n";
  for (const auto& r : reports) {
    const std::string key = csv_field(one_line(r.key));
    for (std::size_t i = 0; i < r.trials.size(); ++i) {
      const TuneTrial& t = r.trials[i];
      out += csv_field(r.name) + "," + key + "," + std::to_string(i);
      for (const auto& n : names) out += "," + (t.config.has(n) ? csv_field(t.config.at(n).str()) : std::string());
      out += std::string(",") + to_string(t.status);
      for (double ms : {t.median_ms, t.min_ms, t.max_ms}) out += "," + (timed(t) ? number(ms) : std::string());
      out += "," + number(t.compile_ms);
      out += "," + (t.registers >= 0 ? std::to_string(t.registers) : std::string());
      out += std::string(",") + (r.best && *r.best == i ? "1" : "0");
      out += "," + csv_field(t.reason) + "\n";
    }
  }
  return out;
}

std::string trial_log_json(const std::vector<TuneReport>& reports) {
  std::string out = "[";
  bool first = true;
  for (const auto& r : reports) {
    const std::string key = json_string(one_line(r.key));
    for (std::size_t i = 0; i < r.trials.size(); ++i) {
      const TuneTrial& t = r.trials[i];
      out += first ? "\n  {" : ",\n  {";
      first = false;
      out += "\"tuner\": " + json_string(r.name) + ", \"key\": " + key + ", \"trial\": " + std::to_string(i);
      out += ", \"config\": {";
      bool first_value = true;
      for (const auto& [name, value] : t.config.entries()) {
        out += (first_value ? "" : ", ") + json_string(name) + ": " + json_value(value);
        first_value = false;
      }
      out += std::string("}, \"status\": ") + json_string(to_string(t.status));
      out += ", \"median_ms\": " + json_number_or_null(timed(t), t.median_ms);
      out += ", \"min_ms\": " + json_number_or_null(timed(t), t.min_ms);
      out += ", \"max_ms\": " + json_number_or_null(timed(t), t.max_ms);
      out += ", \"compile_ms\": " + json_number_or_null(true, t.compile_ms);
      out += ", \"registers\": " + (t.registers >= 0 ? std::to_string(t.registers) : std::string("null"));
      out += std::string(", \"best\": ") + (r.best && *r.best == i ? "true" : "false");
      out += ", \"error\": " + json_string(t.reason) + "}";
    }
  }
  return out + (first ? "]\n" : "\n]\n");
}

std::filesystem::path trial_log_from_environment() {
  const char* v = std::getenv("CUTLET_TUNE_LOG");
  return v && *v ? std::filesystem::path(v) : std::filesystem::path();
}

TrialLog::TrialLog(std::filesystem::path path) : path_(std::move(path)) {
  auto& reg = registry();
  std::lock_guard lock(reg.mu);
  auto& runs = reg.runs[path_.string()];
  run_ = runs.size();
  runs.emplace_back();
}

void TrialLog::update(const TuneReport& report) {
  auto& reg = registry();
  std::lock_guard lock(reg.mu);
  auto& runs = reg.runs[path_.string()];
  runs[run_] = report;
  const std::string text = is_json(path_) ? trial_log_json(runs) : trial_log_csv(runs);
  const std::filesystem::path temp = path_.string() + ".tmp-" + std::to_string(::getpid());
  bool ok = false;
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    ok = static_cast<bool>(out);
  }
  if (ok) std::filesystem::rename(temp, path_, ec);
  if (!ok || ec) {
    std::filesystem::remove(temp, ec);
    if (reg.warned.insert(path_.string()).second)
      log_message(LogLevel::Warn, "cannot write the autotuning trial log " + path_.string() +
                                      "; the trials are not logged there (check CUTLET_TUNE_LOG or "
                                      "AutotuneOptions::trial_log)");
  }
}

}  // namespace cutlet
