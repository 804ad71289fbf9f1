// Reading a calibration back (toml++): every problem is an Error naming file:line:col and the key.
// Unknown keys are ignored, so that a newer perflint's extra figures do not break an older reader.
#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>

#include "util/io.hpp"
#include "util/toml_read.hpp"
#include "probe/calibration.hpp"

namespace perflint::probe {

namespace {

// Errors for one file: "path:line:col: message".
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Error at(const toml::node* where, const std::string& message) const {
    return toml_error_at(path_, where != nullptr ? where->source() : toml::source_region{}, message);
  }

  // A required table (`name` as the file spells it, for the message).
  Expected<const toml::table*> table(const toml::table& doc, std::string_view key) const {
    const toml::node* n = doc.get(key);
    if (n == nullptr) return at(nullptr, "missing table [" + std::string(key) + "]");
    if (!n->is_table()) return at(n, "'" + std::string(key) + "' must be a table");
    return n->as_table();
  }

  Expected<std::string> string(const toml::table& t, std::string_view key, std::string_view where,
                               bool required = true) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (!required) return std::string();
      return at(&t, std::string(where) + " lacks '" + std::string(key) + "'");
    }
    if (!n->is_string()) return at(n, "'" + std::string(key) + "' in " + std::string(where) + " must be a string");
    return std::string(n->as_string()->get());
  }

  struct StringField {
    const char* key;
    std::string* field;
    bool required;
  };
  // Several string keys of one table; the first problem.
  std::optional<Error> strings(const toml::table& t, std::string_view where,
                               std::initializer_list<StringField> fields) const {
    for (const auto& f : fields) {
      auto v = string(t, f.key, where, f.required);
      if (!v) return v.error();
      *f.field = *v;
    }
    return std::nullopt;
  }

  // Calls `read(table, "[[key]] #N")` for each table of the array `key` (absent: none); the first problem.
  template <typename Read>
  std::optional<Error> each(const toml::table& doc, const std::string& key, Read&& read) const {
    auto list = tables(doc, key);
    if (!list) return list.error();
    for (size_t i = 0; i < list->size(); ++i)
      if (auto e = read(*(*list)[i], "[[" + key + "]] #" + std::to_string(i + 1))) return e;
    return std::nullopt;
  }

  // A string naming one of an enum's values.
  template <typename Enum>
  Expected<Enum> choice(const toml::table& t, std::string_view key, const std::string& where,
                        std::optional<Enum> (*parse)(std::string_view), std::string_view allowed) const {
    auto s = string(t, key, where);
    if (!s) return s.error();
    if (const std::optional<Enum> v = parse(*s)) return *v;
    return at(t.get(key),
              where + ": " + std::string(key) + " must be " + std::string(allowed) + ", got \"" + *s + "\"");
  }

  // A number (integer or float); `positive`: > 0.
  Expected<double> number(const toml::table& t, std::string_view key, std::string_view where, bool positive,
                          std::optional<double> fallback = std::nullopt) const {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (fallback) return *fallback;
      return at(&t, std::string(where) + " lacks '" + std::string(key) + "'");
    }
    const std::optional<double> v = n->value<double>();
    if (!n->is_number() || !v)
      return at(n, "'" + std::string(key) + "' in " + std::string(where) + " must be a number");
    if (positive && !(*v > 0.0))
      return at(n, "'" + std::string(key) + "' in " + std::string(where) + " must be positive");
    if (!positive && *v < 0.0)
      return at(n, "'" + std::string(key) + "' in " + std::string(where) + " must not be negative");
    return *v;
  }

  // `key`, `key_p10`, `key_p90`: the median is required; a missing percentile is the median.
  Expected<Spread> spread(const toml::table& t, const std::string& key, std::string_view where) const {
    auto median = number(t, key, where, true);
    if (!median) return median.error();
    auto p10 = number(t, key + "_p10", where, true, *median);
    if (!p10) return p10.error();
    auto p90 = number(t, key + "_p90", where, true, *median);
    if (!p90) return p90.error();
    return Spread{*median, *p10, *p90};
  }

  // An array of tables ([[copy]], [[gemm]]); absent: empty.
  Expected<std::vector<const toml::table*>> tables(const toml::table& doc, std::string_view key) const {
    std::vector<const toml::table*> out;
    const toml::node* n = doc.get(key);
    if (n == nullptr) return out;
    const toml::array* arr = n->as_array();
    if (arr == nullptr)
      return at(n, "'" + std::string(key) + "' must be an array of tables ([[" + std::string(key) + "]])");
    for (const auto& el : *arr) {
      if (!el.is_table())
        return at(&el, "'" + std::string(key) + "' must be an array of tables ([[" + std::string(key) + "]])");
      out.push_back(el.as_table());
    }
    return out;
  }

 private:
  std::string path_;
};

// Reads the named fields into `c`; returns the first problem.
std::optional<Error> read_header(const Reader& r, const toml::table& doc, Calibration& c) {
  auto device = r.table(doc, "device");
  if (!device) return device.error();
  if (auto e = r.strings(**device, "[device]",
                         {{"kind", &c.device_kind, true},
                          {"name", &c.device_name, true},
                          {"capability", &c.capability, false},
                          {"cpu_model", &c.cpu_model, false}}))
    return e;
  if (c.device_kind != "cpu" && c.device_kind != "cuda")
    return r.at((*device)->get("kind"), "[device] kind must be \"cpu\" or \"cuda\", got \"" + c.device_kind + "\"");
  auto threads = r.number(**device, "threads", "[device]", false, 0.0);
  if (!threads) return threads.error();
  c.threads = static_cast<int>(*threads);

  auto versions = r.table(doc, "versions");
  if (!versions) return versions.error();
  if (auto e = r.strings(**versions, "[versions]",
                         {{"libtorch", &c.libtorch, true},
                          {"date", &c.date, true},
                          {"cuda_runtime", &c.cuda_runtime, false},
                          {"cuda_driver", &c.cuda_driver, false}}))
    return e;

  auto method = r.table(doc, "method");
  if (!method) return method.error();
  auto warmup = r.number(**method, "warmup", "[method]", false);
  if (!warmup) return warmup.error();
  auto reps = r.number(**method, "repetitions", "[method]", true);
  if (!reps) return reps.error();
  c.warmup = static_cast<int>(*warmup);
  c.repetitions = static_cast<int>(*reps);
  c.quick = (*method)->get("quick") != nullptr && (*method)->get("quick")->value_or(false);
  return std::nullopt;
}

std::optional<Error> read_figures(const Reader& r, const toml::table& doc, Calibration& c) {
  auto copy = [&](const toml::table& t, const std::string& where) -> std::optional<Error> {
    auto kind = r.choice(t, "memory", where, parse_copy_memory, "\"pageable\", \"pinned\" or \"host\"");
    if (!kind) return kind.error();
    auto bytes = r.number(t, "bytes", where, true);
    if (!bytes) return bytes.error();
    auto gbps = r.spread(t, "gbps", where);
    if (!gbps) return gbps.error();
    c.copies.push_back({*kind, static_cast<uint64_t>(*bytes), *gbps});
    return std::nullopt;
  };
  auto gemm = [&](const toml::table& t, const std::string& where) -> std::optional<Error> {
    auto dtype = r.choice(t, "dtype", where, parse_gemm_dtype, "\"fp32\", \"tf32\" or \"bf16\"");
    if (!dtype) return dtype.error();
    GemmPoint g;
    g.dtype = *dtype;
    for (auto [key, field] : {std::pair{"m", &g.shape.m}, {"n", &g.shape.n}, {"k", &g.shape.k}}) {
      auto v = r.number(t, key, where, true);
      if (!v) return v.error();
      *field = static_cast<int64_t>(*v);
    }
    g.requested = t.get("requested") != nullptr && t.get("requested")->value_or(false);
    auto gflops = r.spread(t, "gflops", where);
    if (!gflops) return gflops.error();
    g.gflops = *gflops;
    c.gemms.push_back(g);
    return std::nullopt;
  };
  if (auto e = r.each(doc, "copy", copy)) return e;
  if (auto e = r.each(doc, "gemm", gemm)) return e;
  for (auto [key, field] : {std::pair{"sync", &c.sync_us}, {"launch", &c.launch_us}}) {
    const toml::node* n = doc.get(key);
    if (n == nullptr) continue;
    if (!n->is_table()) return r.at(n, "'" + std::string(key) + "' must be a table");
    auto us = r.spread(*n->as_table(), "us", "[" + std::string(key) + "]");
    if (!us) return us.error();
    *field = *us;
  }
  return std::nullopt;
}

}  // namespace

Expected<Calibration> parse_calibration(const std::string& text, const std::string& path) {
  Expected<toml::table> parsed = parse_toml(text, path);
  if (!parsed) return parsed.error();
  const toml::table& doc = *parsed;
  const Reader r(path);
  const toml::node* schema = doc.get("schema");
  if (schema == nullptr) return r.at(nullptr, "missing 'schema' (not a perflint calibration?)");
  if (schema->value<int64_t>() != kCalibrationSchema)
    return r.at(schema, "calibration schema " +
                            (schema->is_integer() ? std::to_string(*schema->value<int64_t>()) : "?") +
                            " is not supported (this perflint reads schema " + std::to_string(kCalibrationSchema) +
                            "); run `perflint calibrate` again");
  Calibration c;
  c.path = path;
  if (auto e = read_header(r, doc, c)) return *e;
  if (auto e = read_figures(r, doc, c)) return *e;
  return c;
}

Expected<Calibration> read_calibration(const std::string& path) {
  const FileRead f = read_whole_file(path, 16u << 20);
  if (f.status == FileRead::Status::Error) return make_error(path + ": cannot read the calibration: " + f.error);
  if (f.status == FileRead::Status::TooLarge) return make_error(path + ": not a calibration (over 16 MiB)");
  return parse_calibration(f.bytes, path);
}

Expected<Calibration> find_calibration(std::string_view kind, std::string_view name, const std::string& cache_dir) {
  const std::string path = calibration_path(device_slug(kind, name), cache_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return make_error("no calibration of " + std::string(kind) + " device \"" + std::string(name) + "\" (looked for " +
                      path + "); run `perflint calibrate --device " + std::string(kind) + "` on this machine");
  return read_calibration(path);
}

std::vector<std::string> list_calibrations(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".toml" && it->is_regular_file(ec)) out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace perflint::probe
