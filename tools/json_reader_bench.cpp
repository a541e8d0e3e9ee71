// The measurement behind keeping src/io/json.cpp (docs/serialization.md, "Why ember reads the
// header with its own JSON reader"): safetensors-like headers parsed by ember's JsonReader,
// nlohmann::json (DOM and SAX) and simdjson (On-Demand); time (best of 5, 1 run for 100 MB)
// and the growth of peak RSS, one forked process per run. Not part of the build; needs
// Debian's nlohmann-json3-dev and libsimdjson-dev and a built libember:
//   g++ -O2 -std=c++20 -Isrc -Iinclude tools/json_reader_bench.cpp src/io/json.cpp \
//     -Lbuild/dev -lember -lsimdjson -Wl,-rpath,$PWD/build/dev -o /tmp/json_bench &&
//     /tmp/json_bench
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/json.h"

using Clock = std::chrono::steady_clock;

std::string realistic(int n) {  // n tensors, as a large model's header
  std::string s = "{\"__metadata__\":{\"format\":\"pt\"}";
  long off = 0;
  for (int i = 0; i < n; ++i) {
    long sz = 4L * 1024 * 64;
    s += ",\"model.layers." + std::to_string(i) +
         ".mlp.weight\":{\"dtype\":\"F32\",\"shape\":[1024,64],\"data_offsets\":[" +
         std::to_string(off) + "," + std::to_string(off + sz) + "]}";
    off += sz;
  }
  return s + "}";
}

std::string big_junk(size_t bytes) {  // an unknown field holding a huge array of zeros
  std::string s = "{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0],\"junk\":[0";
  while (s.size() < bytes) s += ",0";
  return s + "]}}";
}

std::string big_objects(size_t bytes) {  // an unknown field holding many small objects
  std::string s = "{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0],\"junk\":[{}";
  while (s.size() < bytes) s += ",{\"k\":[]}";
  return s + "]}}";
}

std::string deep(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

// ember: read what parse_header reads, skipping unknown values (as the loader does).
long ember_parse(const std::string& text) {
  ember::io::JsonReader r(text, "");
  long count = 0;
  std::string key;
  if (r.peek() != '{') {
    r.skip_value();
    return 1;
  }
  r.begin_object();
  while (r.next_key(key)) {
    r.skip_value();
    ++count;
  }
  r.expect_end();
  return count;
}

long nlohmann_dom(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  return long(j.size());
}

struct Counter : nlohmann::json_sax<nlohmann::json> {
  long n = 0;
  int depth = 0;
  bool null() override { return ++n; }
  bool boolean(bool) override { return ++n; }
  bool number_integer(number_integer_t) override { return ++n; }
  bool number_unsigned(number_unsigned_t) override { return ++n; }
  bool number_float(number_float_t, const string_t&) override { return ++n; }
  bool string(string_t&) override { return ++n; }
  bool binary(binary_t&) override { return ++n; }
  bool start_object(std::size_t) override { return ++depth <= 64; }
  bool key(string_t&) override { return true; }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override { return ++depth <= 64; }
  bool end_array() override {
    --depth;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

long nlohmann_sax(const std::string& text) {
  Counter c;
  bool ok = nlohmann::json::sax_parse(text, &c);
  return ok ? c.n : -1;
}

long simdjson_ondemand(const std::string& text) {
  simdjson::ondemand::parser parser(text.size() + 64);
  simdjson::padded_string p(text);
  auto doc = parser.iterate(p);
  long count = 0;
  for (auto field : doc.get_object()) {
    std::string_view k = field.unescaped_key();
    (void)k;
    simdjson::ondemand::value v;
    if (field.value().get(v)) return -1;  // skipped when the loop moves on (brackets checked only)
    ++count;
  }
  return count;
}

void run(const char* name, const std::string& text, long (*f)(const std::string&)) {
  int reps = text.size() > 10'000'000 ? 1 : 5;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    struct rusage u0;
    getrusage(RUSAGE_SELF, &u0);
    double best = 1e9;
    long r = 0;
    std::string err;
    for (int i = 0; i < reps; ++i) {
      auto t0 = Clock::now();
      try {
        r = f(text);
      } catch (const std::exception& e) {
        err = e.what();
        r = -1;
      }
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    std::printf("  %-18s %9.2f ms  peak RSS +%7.1f MB  result %ld %s\n", name, best * 1e3,
                (u.ru_maxrss - u0.ru_maxrss) / 1024.0, r, err.substr(0, 60).c_str());
    std::fflush(stdout);
    _exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st)) std::printf("  %-18s crashed (signal %d)\n", name, WTERMSIG(st));
}

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  struct {
    const char* what;
    std::string text;
  } cases[] = {
      {"10,000 tensors", realistic(10000)},
      {"100 MB array of zeros in an unknown field", big_junk(100'000'000)},
      {"100 MB of small objects in an unknown field", big_objects(100'000'000)},
      {"1,000,000 nested arrays (2 MB)", deep(1'000'000)},
  };
  for (auto& c : cases) {
    std::printf("%s (%.1f MB):\n", c.what, c.text.size() / 1e6);
    run("ember JsonReader", c.text, ember_parse);
    run("nlohmann DOM", c.text, nlohmann_dom);
    run("nlohmann SAX", c.text, nlohmann_sax);
    run("simdjson on-demand", c.text, simdjson_ondemand);
  }
}
