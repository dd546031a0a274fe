#include "core/io/capacity_reservations.hpp"

#include "core/io/text_guard.hpp"
#include "core/io/yaml_reader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace capsim::io {

namespace {

const char* const k_expected =
    "expected the output of `aws ec2 describe-capacity-reservations` (an object with 'CapacityReservations')";

// One reservation; nullopt (with its errors reported) when a required field is missing or bad.
std::optional<model::CapacityReservation> read_reservation(YamlReader& r, const YAML::Node& n, std::size_t index)
{
  const std::string w = fmt::format("CapacityReservations[{}]", index);
  if (!r.check_fields(n, w,
                      {"CapacityReservationId", "InstanceType", "AvailabilityZone", "AvailableInstanceCount", "State",
                       "OwnerId", "InstanceMatchCriteria", "ReservationType", "Tags"},
                      {"CapacityReservationArn", "AvailabilityZoneId", "InstancePlatform", "Tenancy",
                       "TotalInstanceCount", "EbsOptimized", "EphemeralStorage", "StartDate", "EndDate", "EndDateType",
                       "CreateDate", "OutpostArn", "CapacityReservationFleetId", "PlacementGroupArn",
                       "CapacityAllocations", "UnusedReservationBillingOwnerId", "CommitmentInfo",
                       "DeliveryPreference", "CapacityBlockId", "Interruptible", "InterruptionInfo"},
                      Strictness::lenient)) {
    return std::nullopt;
  }
  model::CapacityReservation c;
  c.location = r.location(n);
  bool ok = true;
  const auto text = [&](std::string_view key, std::string& out, bool required) {
    const auto v = child(n, key);
    if (!present(v)) {
      if (required) {
        r.error(n, fmt::format("'{}' needs '{}'", w, key));
        ok = false;
      }
      return;
    }
    if (auto s = r.string(v, w + "." + std::string(key))) {
      out = *s;
    } else {
      ok = false;
    }
  };
  text("CapacityReservationId", c.id, true);
  text("InstanceType", c.instance_type, true);
  text("AvailabilityZone", c.zone, true);
  text("State", c.state, true);
  text("OwnerId", c.owner_id, false);
  text("InstanceMatchCriteria", c.instance_match_criteria, false);
  text("ReservationType", c.reservation_type, false);
  if (c.reservation_type.empty()) {
    c.reservation_type = "default";
  }
  if (const auto v = child(n, "AvailableInstanceCount"); present(v)) {
    if (auto count = r.integer(v, w + ".AvailableInstanceCount", 0, 1'000'000)) {
      c.available = static_cast<std::int32_t>(*count);
    } else {
      ok = false;
    }
  } else {
    r.error(n, fmt::format("'{}' needs 'AvailableInstanceCount'", w));
    ok = false;
  }
  if (const auto tags = child(n, "Tags"); present(tags) && r.expect_sequence(tags, w + ".Tags")) {
    for (const auto& t : tags) {
      if (!r.check_fields(t, w + ".Tags", {"Key", "Value"})) {
        ok = false;
        continue;
      }
      const auto key = r.string(child(t, "Key"), w + ".Tags.Key");
      const auto value = present(child(t, "Value")) ? r.string(child(t, "Value"), w + ".Tags.Value") : std::string();
      if (key && value) {
        c.tags[*key] = *value;
      }
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  return c;
}

} // namespace

std::vector<model::CapacityReservation> parse_capacity_reservations(std::string_view text, const std::string& source)
{
  check_text(text, source, 64);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{source, e.mark.is_null() ? 0U : static_cast<std::uint32_t>(e.mark.line + 1),
                                    e.mark.is_null() ? 0U : static_cast<std::uint32_t>(e.mark.column + 1)},
                     fmt::format("invalid JSON/YAML: {}", e.msg));
  }
  Diagnostics diagnostics;
  YamlReader r(source, diagnostics);
  if (!within_node_budget(root, 10'000'000, 64)) {
    throw InputError(SourceLocation{source, 1, 1}, "the file is too large or too deep once YAML aliases are expanded");
  }
  const auto list = present(root) && root.IsMap() ? child(root, "CapacityReservations") : YAML::Node();
  if (!present(list) || !list.IsSequence()) {
    throw InputError(present(root) ? r.location(root) : SourceLocation{source, 1, 1}, k_expected);
  }
  std::vector<model::CapacityReservation> out;
  std::map<std::string, SourceLocation> seen;
  std::size_t index = 0;
  for (const auto& n : list) {
    if (auto c = read_reservation(r, n, index++)) {
      if (const auto [it, inserted] = seen.emplace(c->id, c->location); !inserted) {
        r.error(n, fmt::format("capacity reservation '{}' is listed twice (first on line {})", c->id, it->second.line));
        continue;
      }
      out.push_back(std::move(*c));
    }
  }
  diagnostics.throw_if_any();
  return out;
}

} // namespace capsim::io
