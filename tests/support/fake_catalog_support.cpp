#include "tests/support/fake_catalog_support.hpp"

#include "core/base/units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace capsim::testing {

double fake_price(std::int64_t cpu_milli, std::int64_t memory_bytes,
                  const std::vector<std::pair<std::string, std::int64_t>>& extended)
{
  double price = 0.1 * (static_cast<double>(cpu_milli) / 1000.0) + 0.1 * static_cast<double>(memory_bytes) / 1e9;
  for (const auto& [name, qty] : extended) {
    if ((name == k_fake_vendor_a || name == k_fake_vendor_b) && qty != 0) {
      price += 1.0;
    }
  }
  return price;
}

catalog::Offering fake_offering(const std::string& zone, const std::string& capacity_type, double price,
                                bool available)
{
  catalog::Offering o;
  o.zone = zone;
  o.capacity_type = capacity_type;
  o.price_per_hour = price;
  o.available = available;
  return o;
}

catalog::InstanceType fake_instance_type(const std::string& name, const FakeTypeOptions& options)
{
  using model::Operator;
  using model::Requirement;
  catalog::InstanceType it;
  it.name = name;
  it.capacity[model::k_cpu] = options.cpu_milli;
  it.capacity[model::k_memory] = options.memory;
  it.capacity[model::k_pods] = options.pods;
  for (const auto& [res, qty] : options.extended) {
    it.capacity[*model::resource_id(res)] = qty;
  }
  it.overhead[model::k_cpu] = 100;
  it.overhead[model::k_memory] = 10 * k_mib;
  const double price = fake_price(options.cpu_milli, options.memory, options.extended);
  if (options.offerings) {
    it.offerings = *options.offerings;
  } else {
    it.offerings = {
        fake_offering("test-zone-1", "spot", price),      fake_offering("test-zone-2", "spot", price),
        fake_offering("test-zone-1", "on-demand", price), fake_offering("test-zone-2", "on-demand", price),
        fake_offering("test-zone-3", "on-demand", price),
    };
  }
  it.vcpu = static_cast<std::int32_t>(options.cpu_milli / 1000);
  it.memory_mib = options.memory / k_mib;
  it.arch = options.arch;

  std::vector<std::string> zones;
  std::vector<std::string> capacity_types;
  for (const auto& o : it.offerings) {
    if (o.available) {
      zones.push_back(o.zone);
      capacity_types.push_back(o.capacity_type);
    }
  }
  const std::int64_t cpus = options.cpu_milli / 1000;
  const bool large = options.cpu_milli > 4000 && options.memory > 8LL * k_gib;
  model::Requirements& r = it.requirements;
  r.add(Requirement::make(std::string(model::labels::k_instance_type), Operator::in, {name}));
  r.add(Requirement::make(std::string(model::labels::k_arch), Operator::in, {options.arch}));
  r.add(Requirement::make(std::string(model::labels::k_os), Operator::in, options.os));
  r.add(Requirement::make(std::string(model::labels::k_zone), Operator::in, zones));
  r.add(Requirement::make(std::string(model::labels::k_capacity_type), Operator::in, capacity_types));
  r.add(Requirement::make(std::string(k_fake_size), Operator::in, {large ? "large" : "small"}));
  // "special" is DoesNotExist on small types and In [optional] on large ones.
  r.add(large ? Requirement::make(std::string(k_fake_special), Operator::in, {"optional"})
              : Requirement::make(std::string(k_fake_special), Operator::does_not_exist, {}));
  r.add(Requirement::make(std::string(k_fake_integer), Operator::in, {std::to_string(cpus)}));
  for (const auto& extra : options.extra_requirements) {
    r.add(extra);
  }
  // Labels a node launched with this type gets (single-valued In requirements).
  for (const auto& req : r.items()) {
    if (req.op() == Operator::in) {
      it.labels[req.key] = req.values.front();
    }
  }
  it.labels.erase(std::string(model::labels::k_zone));
  it.labels.erase(std::string(model::labels::k_capacity_type));
  return it;
}

std::vector<catalog::InstanceType> fake_default_catalog()
{
  std::vector<catalog::InstanceType> out;
  out.push_back(fake_instance_type("default-instance-type"));
  FakeTypeOptions small;
  small.cpu_milli = 2000;
  small.memory = 2LL * k_gib;
  out.push_back(fake_instance_type("small-instance-type", small));
  FakeTypeOptions gpu_a;
  gpu_a.extended = {{std::string(k_fake_vendor_a), 2}};
  out.push_back(fake_instance_type("gpu-vendor-instance-type", gpu_a));
  FakeTypeOptions gpu_b;
  gpu_b.extended = {{std::string(k_fake_vendor_b), 2}};
  out.push_back(fake_instance_type("gpu-vendor-b-instance-type", gpu_b));
  FakeTypeOptions arm;
  arm.arch = "arm64";
  arm.os = {"darwin", "ios", "linux", "windows"};
  arm.cpu_milli = 16000;
  arm.memory = 128LL * k_gib;
  out.push_back(fake_instance_type("arm-instance-type", arm));
  FakeTypeOptions single;
  single.pods = 1;
  out.push_back(fake_instance_type("single-pod-instance-type", single));
  return out;
}

std::vector<catalog::InstanceType> fake_instance_types(int n)
{
  std::vector<catalog::InstanceType> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    FakeTypeOptions o;
    o.cpu_milli = static_cast<std::int64_t>(i + 1) * 1000;
    o.memory = static_cast<std::int64_t>(i + 1) * 2 * k_gib;
    o.pods = static_cast<std::int64_t>(i + 1) * 10;
    out.push_back(fake_instance_type(fmt::format("fake-it-{}", i), o));
  }
  return out;
}

std::vector<catalog::InstanceType> fake_instance_types_assorted()
{
  std::vector<catalog::InstanceType> out;
  for (const int cpu : {1, 2, 4, 8, 16, 32, 64}) {
    for (const int mem : {1, 2, 4, 8, 16, 32, 64, 128}) {
      for (const char* zone : {"test-zone-1", "test-zone-2", "test-zone-3"}) {
        for (const char* ct : {"spot", "on-demand"}) {
          for (const char* os : {"linux", "windows"}) {
            for (const char* arch : {"amd64", "arm64"}) {
              FakeTypeOptions o;
              o.cpu_milli = static_cast<std::int64_t>(cpu) * 1000;
              o.memory = static_cast<std::int64_t>(mem) * k_gib;
              o.arch = arch;
              o.os = {os};
              o.offerings = std::vector<catalog::Offering>{
                  fake_offering(zone, ct, fake_price(o.cpu_milli, o.memory))};
              out.push_back(fake_instance_type(
                  fmt::format("{}-cpu-{}-mem-{}-{}-{}-{}", cpu, mem, arch, os, zone, ct), o));
            }
          }
        }
      }
    }
  }
  return out;
}

} // namespace capsim::testing
