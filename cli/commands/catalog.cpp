// `capsim catalog list|show|prices`: browse the instance-type catalog (embedded pricing-data/
// or a catalog folder) with NodePool requirement filters, like ec2-instance-selector.
// `capsim catalog import`: build a catalog folder from saved AWS CLI JSON outputs.
#include "cli/commands/commands.hpp"
#include "cli/output/files.hpp"
#include "core/base/diagnostics.hpp"
#include "core/base/text.hpp"
#include "core/base/units.hpp"
#include "core/catalog/catalog_json.hpp"
#include "core/catalog/filter.hpp"
#include "core/catalog/import.hpp"
#include "core/catalog/load.hpp"
#include "core/io/text_guard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

namespace capsim::cli {

namespace {

// Options shared by the three subcommands (each gets its own copy).
struct CatalogOptions
{
  std::string region = "us-east-1";
  std::string catalog;
  std::vector<std::string> where;
  std::string requirements_file;
  std::string output = "table";
  std::string sort = "family";
  std::vector<std::string> types; // show: one name; prices: optional names
};

void warn(const std::string& message)
{
  std::cerr << "capsim: warning: " << message << '\n';
}

std::string read_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError({path}, "cannot read the file (expected a NodePool YAML file)");
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every label key the catalog's types define or state as absent, plus Karpenter's well-known keys.
std::set<std::string> known_keys(const catalog::Catalog& cat)
{
  std::set<std::string> keys{std::string(model::labels::k_zone), std::string(model::labels::k_capacity_type)};
  for (const auto& it : cat.instance_types()) {
    for (const auto& [k, v] : it.labels) {
      keys.insert(k);
    }
    keys.insert(it.absent_labels.begin(), it.absent_labels.end());
  }
  return keys;
}

// The filter from --where and --requirements. A --where key no type defines is an error when
// it is a near miss of a known key (a typo), else a warning: like Karpenter, requirements on
// labels an instance type does not define do not constrain it.
model::Requirements build_filter(const CatalogOptions& o, const catalog::Catalog& cat)
{
  model::Requirements reqs;
  const auto keys = known_keys(cat);
  const std::vector<std::string> key_list(keys.begin(), keys.end());
  const auto check_key = [&](const std::string& key, const SourceLocation& where, bool typo_is_error) {
    if (keys.contains(key) || model::is_well_known_label(key)) {
      return;
    }
    const std::string hint = did_you_mean(key, key_list);
    if (!hint.empty() && typo_is_error) {
      throw InputError(where, fmt::format("no instance type has label '{}'{} (expected a label key of the catalog, "
                                          "see `capsim catalog show TYPE`)",
                                          key, hint));
    }
    warn(fmt::format("no instance type has label '{}'{}; it does not filter instance types", key, hint));
  };
  if (!o.requirements_file.empty()) {
    const std::string text = read_file(o.requirements_file);
    io::check_text(text, o.requirements_file);
    io::check_yaml_documents(text, o.requirements_file);
    const auto np = catalog::parse_nodepool_requirements(text, o.requirements_file);
    for (const auto& r : np.items()) {
      check_key(r.key, {o.requirements_file}, false);
    }
    reqs.add(np);
  }
  for (const auto& w : o.where) {
    const SourceLocation where{fmt::format("--where '{}'", w)};
    const auto r = catalog::parse_where(w, where);
    check_key(r.key, where, true);
    reqs.add(r);
  }
  return reqs;
}

// A matched type with the offerings the filter allows.
struct Row
{
  const catalog::InstanceType* type = nullptr;
  std::vector<catalog::Offering> offerings;
  const catalog::Offering* on_demand = nullptr; // cheapest
  const catalog::Offering* spot = nullptr;      // cheapest (lowest band on ties, then zone)
};

Row make_row(const catalog::InstanceType& it, std::vector<catalog::Offering> offerings)
{
  Row r{.type = &it, .offerings = std::move(offerings)};
  for (const auto& o : r.offerings) {
    if (o.capacity_type == model::k_capacity_on_demand) {
      if (r.on_demand == nullptr || o.price_per_hour < r.on_demand->price_per_hour) {
        r.on_demand = &o;
      }
    } else if (o.capacity_type == model::k_capacity_spot) {
      if (r.spot == nullptr || o.price_per_hour < r.spot->price_per_hour
          || (o.price_per_hour == r.spot->price_per_hour
              && o.interruption_band.value_or(9) < r.spot->interruption_band.value_or(9))) {
        r.spot = &o;
      }
    }
  }
  return r;
}

std::vector<Row> select(const catalog::Catalog& cat, const model::Requirements& reqs)
{
  std::vector<Row> rows;
  for (const auto& it : cat.instance_types()) {
    if (!it.requirements.intersects(reqs).empty()) {
      continue;
    }
    auto offerings = catalog::compatible_offerings(it, reqs);
    if (offerings.empty()) {
      continue;
    }
    rows.push_back(make_row(it, std::move(offerings)));
  }
  return rows;
}

std::string family_of(const catalog::InstanceType& it)
{
  auto f = it.labels.find("karpenter.k8s.aws/instance-family");
  return f == it.labels.end() ? it.name : f->second;
}

// Orders rows by the --sort key; every order ends with the name (total order).
void sort_rows(std::vector<Row>& rows, const std::string& key)
{
  const auto price = [](const catalog::Offering* o) { return o == nullptr ? 1e300 : o->price_per_hour; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const auto& x = *a.type;
    const auto& y = *b.type;
    if (key == "name") {
      return x.name < y.name;
    }
    if (key == "price") {
      return std::tuple(price(a.on_demand), x.name) < std::tuple(price(b.on_demand), y.name);
    }
    if (key == "spot-price") {
      return std::tuple(price(a.spot), x.name) < std::tuple(price(b.spot), y.name);
    }
    if (key == "vcpu") {
      return std::tuple(x.vcpu, x.memory_mib, x.name) < std::tuple(y.vcpu, y.memory_mib, y.name);
    }
    if (key == "memory") {
      return std::tuple(x.memory_mib, x.vcpu, x.name) < std::tuple(y.memory_mib, y.vcpu, y.name);
    }
    return std::tuple(family_of(x), x.vcpu, x.memory_mib, x.name) < std::tuple(family_of(y), y.vcpu, y.memory_mib, y.name);
  });
}

// "16", "0.5", "13.83": GiB with at most two decimals.
std::string gib(double mib)
{
  std::string s = fmt::format("{:.2f}", mib / 1024.0);
  while (s.back() == '0') {
    s.pop_back();
  }
  if (s.back() == '.') {
    s.pop_back();
  }
  return s;
}

std::string usd(const catalog::Offering* o)
{
  return o == nullptr ? "-" : fmt::format("{:.4f}", o->price_per_hour);
}

std::string band(const catalog::Offering* o)
{
  return o == nullptr || !o->interruption_band ? "-" : std::string(catalog::interruption_band_label(*o->interruption_band));
}

// Column-aligned text table: numbers (columns marked right) right-aligned, two spaces apart.
std::string render_table(const std::vector<std::string>& header, const std::vector<bool>& right,
                         const std::vector<std::vector<std::string>>& body)
{
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : body) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) {
        l += "  ";
      }
      const std::size_t pad = width[c] - cells[c].size();
      if (right[c]) {
        l += std::string(pad, ' ') + cells[c];
      } else {
        l += cells[c] + (c + 1 < cells.size() ? std::string(pad, ' ') : std::string());
      }
    }
    out += l + '\n';
  };
  line(header);
  for (const auto& row : body) {
    line(row);
  }
  return out;
}

// A CSV cell, quoted when needed.
std::string csv_cell(const std::string& s)
{
  if (s.find_first_of(",\"\n") == std::string::npos) {
    return s;
  }
  std::string q = "\"";
  for (const char ch : s) {
    q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  }
  return q + "\"";
}

std::string csv_line(const std::vector<std::string>& cells)
{
  std::string l;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    l += (i > 0 ? "," : "") + csv_cell(cells[i]);
  }
  return l + '\n';
}

std::string number(double v)
{
  return fmt::format("{}", v);
}

std::string list_output(const std::vector<Row>& rows, const std::string& format)
{
  if (format == "json") {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      arr.push_back(catalog::instance_type_json(*r.type, &r.offerings));
    }
    return arr.dump(2) + '\n';
  }
  if (format == "csv") {
    std::string out = csv_line({"name", "vcpu", "memory_mib", "arch", "gpu_count", "allocatable_cpu_millis",
                                "allocatable_memory_mib", "pods", "on_demand_usd_per_hour", "spot_usd_per_hour",
                                "interruption_band"});
    for (const auto& r : rows) {
      const auto a = r.type->allocatable();
      out += csv_line({r.type->name, std::to_string(r.type->vcpu), std::to_string(r.type->memory_mib), r.type->arch,
                       std::to_string(r.type->gpu_count), std::to_string(a.cpu()),
                       number(static_cast<double>(a.memory()) / k_mib), std::to_string(a.pods()),
                       r.on_demand ? number(r.on_demand->price_per_hour) : "",
                       r.spot ? number(r.spot->price_per_hour) : "",
                       r.spot && r.spot->interruption_band ? std::to_string(*r.spot->interruption_band) : ""});
    }
    return out;
  }
  std::vector<std::vector<std::string>> body;
  for (const auto& r : rows) {
    const auto a = r.type->allocatable();
    body.push_back({r.type->name, std::to_string(r.type->vcpu), gib(static_cast<double>(r.type->memory_mib)),
                    r.type->arch, r.type->gpu_count > 0 ? std::to_string(r.type->gpu_count) : "-",
                    fmt::format("{}m", a.cpu()), gib(static_cast<double>(a.memory()) / k_mib),
                    std::to_string(a.pods()), usd(r.on_demand), usd(r.spot), band(r.spot)});
  }
  std::string out = render_table({"NAME", "VCPU", "MEMORY-GIB", "ARCH", "GPU", "ALLOC-CPU", "ALLOC-MEM-GIB",
                                  "PODS", "ON-DEMAND-$/H", "SPOT-$/H", "SPOT-INTERRUPT"},
                                 {false, true, true, false, true, true, true, true, true, true, false}, body);
  out += fmt::format("{} instance types\n", rows.size());
  return out;
}

std::string resources_text(const model::Resources& r)
{
  std::string s = fmt::format("cpu {}m, memory {}Mi, pods {}, ephemeral-storage {}Mi", r.cpu(),
                              number(static_cast<double>(r.memory()) / k_mib), r.pods(),
                              number(static_cast<double>(r[model::k_ephemeral_storage]) / k_mib));
  std::vector<std::pair<std::string, std::int64_t>> extended; // sorted by name
  for (std::size_t id = model::k_nvidia_gpu; id < model::resource_count(); ++id) {
    const auto rid = static_cast<model::ResourceId>(id);
    if (r[rid] != 0) {
      extended.emplace_back(model::resource_name(rid), r[rid]);
    }
  }
  std::sort(extended.begin(), extended.end());
  for (const auto& [name, value] : extended) {
    s += fmt::format(", {} {}", name, value);
  }
  return s;
}

std::string prices_output(const std::vector<Row>& rows, const std::string& format)
{
  if (format == "json") {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      j["name"] = r.type->name;
      nlohmann::ordered_json offs = nlohmann::ordered_json::array();
      for (const auto& o : r.offerings) {
        offs.push_back(catalog::offering_json(o));
      }
      j["offerings"] = std::move(offs);
      arr.push_back(std::move(j));
    }
    return arr.dump(2) + '\n';
  }
  if (format == "csv") {
    std::string out = csv_line({"name", "zone", "capacity_type", "price_per_hour", "interruption_band"});
    for (const auto& r : rows) {
      for (const auto& o : r.offerings) {
        out += csv_line({r.type->name, o.zone, o.capacity_type, number(o.price_per_hour),
                         o.interruption_band ? std::to_string(*o.interruption_band) : ""});
      }
    }
    return out;
  }
  // One line per (type, zone): on-demand and spot side by side.
  std::vector<std::vector<std::string>> body;
  for (const auto& r : rows) {
    std::vector<std::string> zones;
    for (const auto& o : r.offerings) {
      if (std::find(zones.begin(), zones.end(), o.zone) == zones.end()) {
        zones.push_back(o.zone);
      }
    }
    for (const auto& z : zones) {
      const catalog::Offering* od = nullptr;
      const catalog::Offering* sp = nullptr;
      for (const auto& o : r.offerings) {
        if (o.zone == z) {
          (o.capacity_type == model::k_capacity_spot ? sp : od) = &o;
        }
      }
      const std::string saving = od != nullptr && sp != nullptr && od->price_per_hour > 0
                                     ? fmt::format("{:.0f}%", 100.0 * (1.0 - sp->price_per_hour / od->price_per_hour))
                                     : "-";
      body.push_back({r.type->name, z, usd(od), usd(sp), saving, band(sp)});
    }
  }
  return render_table({"NAME", "ZONE", "ON-DEMAND-$/H", "SPOT-$/H", "SPOT-SAVING", "SPOT-INTERRUPT"},
                      {false, false, true, true, true, false}, body);
}

std::string show_output(const catalog::InstanceType& it, const std::string& region, const std::string& format)
{
  if (format == "json") {
    return catalog::instance_type_json(it).dump(2) + '\n';
  }
  if (format == "csv") {
    return list_output({make_row(it, it.offerings)}, "csv");
  }
  std::string out = fmt::format("{} ({})\n", it.name, region);
  out += fmt::format("  vCPU {}, memory {} GiB ({} MiB), arch {}, GPUs {}{}\n", it.vcpu,
                     gib(static_cast<double>(it.memory_mib)), it.memory_mib, it.arch, it.gpu_count,
                     it.exotic ? " (exotic: metal or accelerator)" : "");
  out += fmt::format("  capacity:    {}\n", resources_text(it.capacity));
  out += fmt::format("  overhead:    {}\n", resources_text(it.overhead));
  out += fmt::format("  allocatable: {}\n", resources_text(it.allocatable()));
  out += "labels:\n";
  for (const auto& [k, v] : it.labels) {
    out += fmt::format("  {}={}\n", k, v);
  }
  out += "offerings:\n";
  std::vector<std::vector<std::string>> body;
  for (const auto& o : it.offerings) {
    body.push_back({o.zone, o.capacity_type, fmt::format("{:.6f}", o.price_per_hour), band(&o),
                    o.stale_price ? "stale (2020 table)" : ""});
  }
  std::string table = render_table({"ZONE", "CAPACITY-TYPE", "$/HOUR", "INTERRUPT", "NOTE"},
                                   {false, false, true, false, false}, body);
  std::istringstream lines(table);
  for (std::string l; std::getline(lines, l);) {
    while (!l.empty() && l.back() == ' ') {
      l.pop_back();
    }
    out += "  " + l + '\n';
  }
  return out;
}

void print_warnings(const catalog::Catalog& cat)
{
  for (const auto& w : cat.warnings()) {
    warn(w);
  }
}

int run_list(const CatalogOptions& o)
{
  const auto cat = catalog::load_catalog(o.region, o.catalog);
  auto rows = select(cat, build_filter(o, cat));
  sort_rows(rows, o.sort);
  print_warnings(cat);
  std::cout << list_output(rows, o.output) << std::flush;
  return 0;
}

int run_prices(const CatalogOptions& o)
{
  const auto cat = catalog::load_catalog(o.region, o.catalog);
  auto filter = build_filter(o, cat);
  if (!o.types.empty()) {
    for (const auto& name : o.types) {
      if (cat.find(name) == nullptr) {
        throw InputError({name}, fmt::format("unknown instance type '{}'{} in {}", name,
                                             did_you_mean(name, cat.names()), o.region));
      }
    }
    filter.add(model::Requirement::make(std::string(model::labels::k_instance_type), model::Operator::in, o.types));
  }
  auto rows = select(cat, filter);
  sort_rows(rows, o.sort);
  print_warnings(cat);
  std::cout << prices_output(rows, o.output) << std::flush;
  return 0;
}

int run_show(const CatalogOptions& o)
{
  const auto cat = catalog::load_catalog(o.region, o.catalog);
  const std::string& name = o.types.front();
  const auto* it = cat.find(name);
  if (it == nullptr) {
    const auto& data = o.catalog.empty() || o.catalog == "default" ? catalog::embedded_catalog_data()
                                                                   : catalog::read_catalog_folder(o.catalog);
    if (data.find(name) != nullptr) {
      throw InputError({name}, fmt::format("instance type '{}' has no on-demand price in {}, so it is not in the "
                                           "catalog of that region (expected a type with a price; try --region)",
                                           name, o.region));
    }
    throw InputError({name}, fmt::format("unknown instance type '{}'{} (expected an instance type of {}; see "
                                         "`capsim catalog list`)",
                                         name, did_you_mean(name, cat.names()), o.region));
  }
  if (std::any_of(it->offerings.begin(), it->offerings.end(), [](const auto& of) { return of.stale_price; })) {
    warn(fmt::format("the on-demand price of {} in {} is stale (from the July 2020 price table); its spot "
                     "estimates derive from it",
                     name, o.region));
  }
  std::cout << show_output(*it, o.region, o.output) << std::flush;
  return 0;
}

// Options of `catalog import`.
struct ImportCommandOptions
{
  std::string from;
  std::string out;
};

// Imports the AWS CLI outputs of --from and writes the five catalog files into --out: every
// file goes to a temporary file first and all are renamed into place only once all are
// written, so a failure leaves --out as it was.
int run_import(const ImportCommandOptions& o)
{
  namespace fs = std::filesystem;
  const auto inputs = catalog::read_aws_json_files(o.from);
  const auto result = catalog::import_aws_json(inputs, {.reference = &catalog::embedded_catalog_data()});
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_directory(o.out, ec)) {
    throw InputError({o.out}, "not a folder (expected a folder to write the catalog into)");
  }
  fs::create_directories(o.out, ec);
  if (ec) {
    throw InputError({o.out}, fmt::format("cannot create the folder: {} (expected a writable path)", ec.message()));
  }
  std::vector<std::unique_ptr<AtomicWriter>> writers;
  for (const auto& f : result.files) {
    writers.push_back(std::make_unique<AtomicWriter>((fs::path(o.out) / f.name).string()));
    writers.back()->write(f.text);
  }
  for (auto& w : writers) {
    w->commit();
  }
  for (const auto& w : result.warnings) {
    warn(w);
  }
  const auto& st = result.stats;
  std::cout << fmt::format("imported {} instance types, {} on-demand prices in {} region{}, {} spot prices "
                           "({} types) in {} zones from {} file{} into {}\n",
                           st.instance_types, st.prices, st.regions, st.regions == 1 ? "" : "s", st.spot_prices,
                           st.spot_types, st.zones, st.files, st.files == 1 ? "" : "s", o.out)
            << std::flush;
  return 0;
}

void add_common_options(CLI::App* cmd, CatalogOptions& o, bool filters)
{
  cmd->add_option("--region", o.region, "AWS region (default us-east-1)");
  cmd->add_option("--catalog", o.catalog, "catalog folder with the pricing-data/ layout (default: the embedded one)");
  if (filters) {
    cmd->add_option("--where", o.where,
                    "requirement 'KEY OPERATOR [V1,V2,...]' as in a NodePool (In, NotIn, Exists, DoesNotExist, "
                    "Gt, Lt); repeatable, all must hold");
    cmd->add_option("--requirements", o.requirements_file,
                    "NodePool YAML whose spec.template.spec.requirements filter the types");
    cmd->add_option("--sort", o.sort, "row order: family (then size), name, price, spot-price, vcpu, memory")
        ->check(CLI::IsMember({"family", "name", "price", "spot-price", "vcpu", "memory"}));
  }
  cmd->add_option("-o,--output", o.output, "output format: table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
}

} // namespace

void add_catalog_command(CLI::App& app, CommandResult& result)
{
  auto* cmd = app.add_subcommand("catalog", "List, filter and show EC2 instance types, allocatable and prices");
  cmd->require_subcommand(1);
  cmd->footer("Examples:\n"
              "  capsim catalog list --where 'karpenter.k8s.aws/instance-family In m5'\n"
              "  capsim catalog list --where 'karpenter.k8s.aws/instance-family In m5,c6i' \\\n"
              "                      --where 'karpenter.k8s.aws/instance-cpu Gt 4' --sort price\n"
              "  capsim catalog list --requirements nodepool.yaml -o csv\n"
              "  capsim catalog show m5.xlarge -o json\n"
              "  capsim catalog prices m5.large c6i.large --region eu-west-1\n"
              "The catalog is the embedded pricing-data/ (us-east-1 prices of 2026; other regions from\n"
              "the July 2020 table, flagged stale) unless --catalog DIR names a folder of the same layout.");

  auto list_opts = std::make_shared<CatalogOptions>();
  auto* list = cmd->add_subcommand("list", "List instance types matching NodePool-style requirements");
  add_common_options(list, *list_opts, true);
  list->footer("Examples:\n"
               "  capsim catalog list --where 'karpenter.k8s.aws/instance-family In m5' -o table\n"
               "  capsim catalog list --where 'kubernetes.io/arch In arm64' --where 'karpenter.k8s.aws/instance-cpu Lt 5'\n"
               "  capsim catalog list --where 'karpenter.k8s.aws/instance-gpu-count Gt 0' --sort price\n"
               "  capsim catalog list --where 'karpenter.sh/capacity-type In spot' --sort spot-price -o json\n"
               "Table columns: memory and allocatable memory in GiB; ON-DEMAND-$/H and SPOT-$/H are the\n"
               "cheapest offerings (USD per hour) over the allowed zones; SPOT-INTERRUPT is the Spot Advisor\n"
               "interruption frequency of the cheapest spot offering.");
  list->callback([&result, list_opts] { result.action = [list_opts] { return run_list(*list_opts); }; });

  auto show_opts = std::make_shared<CatalogOptions>();
  auto* show = cmd->add_subcommand("show", "Show one instance type: labels, capacity, allocatable, offerings");
  show->add_option("TYPE", show_opts->types, "instance type name, e.g. m5.xlarge")->required()->expected(1);
  add_common_options(show, *show_opts, false);
  show->footer("Examples:\n"
               "  capsim catalog show m5.xlarge\n"
               "  capsim catalog show m5.xlarge -o json\n"
               "  capsim catalog show c5.large --region eu-west-1");
  show->callback([&result, show_opts] { result.action = [show_opts] { return run_show(*show_opts); }; });

  auto prices_opts = std::make_shared<CatalogOptions>();
  auto* prices = cmd->add_subcommand("prices", "List the offerings (zone, capacity type, price) of instance types");
  prices->add_option("TYPES", prices_opts->types, "instance type names (default: every type the filters allow)");
  add_common_options(prices, *prices_opts, true);
  prices->footer("Examples:\n"
                 "  capsim catalog prices m5.large\n"
                 "  capsim catalog prices --where 'karpenter.k8s.aws/instance-family In c6i' --where "
                 "'topology.kubernetes.io/zone In us-east-1a'\n"
                 "  capsim catalog prices m5.large --region eu-west-1 -o csv\n"
                 "Spot prices are estimates: on-demand x (1 - Spot Advisor savings) x the zone's relative\n"
                 "spot price from the 2022 per-AZ history, where known.");
  prices->callback([&result, prices_opts] { result.action = [prices_opts] { return run_prices(*prices_opts); }; });

  auto import_opts = std::make_shared<ImportCommandOptions>();
  auto* import = cmd->add_subcommand("import", "Build a catalog folder from saved AWS CLI JSON outputs");
  import->add_option("--from", import_opts->from,
                     "folder of saved outputs (*.json, read in name order) or one JSON file")
      ->required();
  import->add_option("--out", import_opts->out, "catalog folder to write (created if missing; files replaced)")
      ->required();
  import->footer("Save the outputs (any file names ending in .json; pages or regions may be split):\n"
                 "  aws ec2 describe-instance-types --region us-east-1 > from/types.json\n"
                 "  aws ec2 describe-spot-price-history --region us-east-1 --start-time $(date -u +%FT%T) \\\n"
                 "      --product-descriptions Linux/UNIX > from/spot.json\n"
                 "  aws pricing get-products --region us-east-1 --service-code AmazonEC2 --filters \\\n"
                 "      Type=TERM_MATCH,Field=regionCode,Value=us-east-1 \\\n"
                 "      Type=TERM_MATCH,Field=operatingSystem,Value=Linux > from/prices.json\n"
                 "then:\n"
                 "  capsim catalog import --from from --out my-catalog\n"
                 "  capsim catalog show m5.xlarge --catalog my-catalog\n"
                 "Spot offerings get the latest Linux/UNIX price per zone and an unknown interruption band.\n"
                 "See docs/catalog-import.md.");
  import->callback([&result, import_opts] { result.action = [import_opts] { return run_import(*import_opts); }; });
}

} // namespace capsim::cli
