// The profiler's table and scopes for C++ programs (include/ember/profiler.h): the same
// table as ember.profiler's (python/ember/profiler.py).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "ember/error.h"
#include "ember/profiler.h"

namespace ember::profiler {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt_time(double ns) {
  if (ns >= 1e9) return fmt("%.3fs", ns / 1e9);
  if (ns >= 1e6) return fmt("%.3fms", ns / 1e6);
  return fmt("%.3fus", ns / 1e3);
}

std::string fmt_bytes(int64_t n) {
  const std::pair<const char*, int64_t> units[] = {{"GB", int64_t(1) << 30},
                                                   {"MB", 1 << 20},
                                                   {"KB", 1 << 10}};
  for (auto [unit, size] : units)
    if (std::abs(n) >= size) return fmt("%.2f ", double(n) / double(size)) + unit;
  return std::to_string(n) + " B";
}

int64_t sort_key(const OpStats& r, std::string_view by) {
  if (by == "self_cpu_time_total" || by == "self_time") return r.self_ns;
  if (by == "cpu_time_total" || by == "total_time") return r.total_ns;
  if (by == "count" || by == "calls") return r.calls;
  if (by == "self_cpu_memory_usage") return r.self_bytes;
  return r.total_bytes;  // cpu_memory_usage
}

}  // namespace

std::string table(const std::vector<OpStats>& all, int64_t wall_ns, std::string_view sort_by,
                  int64_t row_limit) {
  static const std::string_view keys[] =
      {"self_cpu_time_total",   "cpu_time_total",   "count",     "calls",
       "self_cpu_memory_usage", "cpu_memory_usage", "self_time", "total_time"};
  EMBER_CHECK(std::find(std::begin(keys), std::end(keys), sort_by) != std::end(keys), ValueError,
              "profile.table: unknown sort_by '", sort_by,
              "' (one of self_cpu_time_total, cpu_time_total, "
              "count, calls, self_cpu_memory_usage, cpu_memory_usage, self_time, total_time)");
  std::vector<OpStats> rows = all;
  std::stable_sort(rows.begin(), rows.end(), [&](const OpStats& a, const OpStats& b) {
    return sort_key(a, sort_by) > sort_key(b, sort_by);
  });
  if (row_limit >= 0 && size_t(row_limit) < rows.size()) rows.resize(size_t(row_limit));
  int64_t ops_ns = 0;
  for (const OpStats& r : all) ops_ns += r.self_ns;
  const double wall = double(std::max<int64_t>(wall_ns, 1));
  std::vector<std::vector<std::string>> cells = {
      {"Name", "Self %", "Self time", "Total time", "Calls", "Avg self", "Self alloc"}};
  for (const OpStats& r : rows)
    cells.push_back({r.name + (r.backward ? " (backward)" : ""),
                     fmt("%.1f%%", 100.0 * double(r.self_ns) / wall), fmt_time(double(r.self_ns)),
                     fmt_time(double(r.total_ns)), std::to_string(r.calls),
                     fmt_time(double(r.self_ns) / double(std::max<int64_t>(r.calls, 1))),
                     fmt_bytes(r.self_bytes)});
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  size_t total = 2 * (width.size() - 1);
  for (size_t w : width) total += w;
  const std::string rule(total, '-');
  std::string out = rule + "\n";
  for (size_t k = 0; k < cells.size(); ++k) {
    for (size_t i = 0; i < cells[k].size(); ++i) {
      const std::string& c = cells[k][i];
      const std::string pad(width[i] - c.size(), ' ');
      out += (i ? "  " : "") + (i == 0 ? c + pad : pad + c);
    }
    out += "\n";
    if (k == 0) out += rule + "\n";
  }
  out += rule + "\n";
  const int64_t outside = std::max<int64_t>(wall_ns - ops_ns, 0);
  out += "Wall time: " + fmt_time(double(wall_ns)) + "; in ember ops: " + fmt_time(double(ops_ns)) +
         " (" + fmt("%.1f%%", 100.0 * double(ops_ns) / wall) +
         "); outside them (your code): " + fmt_time(double(outside)) + " (" +
         fmt("%.1f%%", 100.0 * double(outside) / wall) + ")";
  return out;
}

Profile::Profile() {
  EMBER_CHECK(!enabled(), Error, "profile: a profiler is already running (profiles cannot nest)");
  start_ns_ = now_ns();
  start();
}

Profile::~Profile() {
  if (!rows_) profiler::stop();
}

const std::vector<OpStats>& Profile::stop() {
  if (!rows_) {
    rows_ = profiler::stop();
    wall_ns_ = now_ns() - start_ns_;
  }
  return *rows_;
}

const std::vector<OpStats>& Profile::rows() const {
  EMBER_CHECK(rows_.has_value(), Error, "profile: no results yet (call stop() first)");
  return *rows_;
}

std::string Profile::table(std::string_view sort_by, int64_t row_limit) const {
  return profiler::table(rows(), wall_ns_, sort_by, row_limit);
}

}  // namespace ember::profiler
