#include "core/io/volumes.hpp"

#include "core/base/rng.hpp"
#include "core/io/pod_template.hpp"
#include "core/io/trace.hpp"
#include "core/model/requirements.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace capsim::io {

namespace {

// Provisioners whose volumes live in one zone (the EBS CSI driver and its in-tree name).
bool zonal_provisioner(std::string_view provisioner)
{
  return provisioner == "ebs.csi.aws.com" || provisioner == "kubernetes.io/aws-ebs";
}

model::Requirements to_requirements(const model::NodeSelectorTerm& term)
{
  model::Requirements out;
  for (const auto& r : term.requirements) {
    out.add(r);
  }
  return out;
}

// The alternatives a bound volume gives: its node-affinity terms. A local or hostPath volume's
// kubernetes.io/hostname requirements are dropped (a replacement node never has the old name);
// a term left empty by that allows any node, so the volume constrains nothing.
std::vector<model::NodeSelectorTerm> volume_alternatives(const VolumeInfo& v)
{
  std::vector<model::NodeSelectorTerm> out;
  for (const auto& term : v.node_affinity) {
    if (term.requirements.empty()) {
      continue; // upstream skips terms without requirements
    }
    model::NodeSelectorTerm kept;
    for (const auto& r : term.requirements) {
      if (!(v.local && r.key == model::labels::k_hostname)) {
        kept.requirements.push_back(r);
      }
    }
    if (kept.requirements.empty()) {
      return {};
    }
    out.push_back(std::move(kept));
  }
  return out;
}

// The zones a claim provisioned at once may be put in: its class's allowed zones, else the
// scenario's.
std::vector<std::string> allowed_zones(const StorageClassInfo& sc)
{
  std::vector<std::string> zones;
  for (const auto& term : sc.allowed_topologies) {
    for (const auto& r : term.requirements) {
      if (r.key == model::labels::k_zone || r.key == model::labels::k_ebs_csi_zone) {
        zones.insert(zones.end(), r.values.begin(), r.values.end());
      }
    }
  }
  std::sort(zones.begin(), zones.end());
  zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  return zones;
}

std::optional<std::string> read_class_name(YamlReader& r, const YAML::Node& spec, const std::string& what,
                                           SourceLocation& at)
{
  const auto n = child(spec, "storageClassName");
  if (!present(n)) {
    return std::nullopt;
  }
  auto v = r.string(n, what + ".storageClassName");
  if (v) {
    at = r.location(n);
  }
  return v;
}

} // namespace

void StorageModel::add_claim(ClaimInfo claim)
{
  std::string key = claim.namespace_ + "/" + claim.name;
  m_claims.emplace(std::move(key), std::move(claim));
}

void StorageModel::add_volume(VolumeInfo volume)
{
  std::string key = volume.name;
  m_volumes.emplace(std::move(key), std::move(volume));
}

void StorageModel::add_class(StorageClassInfo storage_class)
{
  std::string key = storage_class.name;
  m_classes.emplace(std::move(key), std::move(storage_class));
}

const ClaimInfo* StorageModel::find_claim(const std::string& namespace_, const std::string& name) const
{
  const auto it = m_claims.find(namespace_ + "/" + name);
  return it == m_claims.end() ? nullptr : &it->second;
}

std::vector<const ClaimInfo*> StorageModel::claims_with_prefix(const std::string& namespace_,
                                                               const std::string& prefix) const
{
  std::vector<const ClaimInfo*> out;
  const std::string key = namespace_ + "/" + prefix;
  for (auto it = m_claims.lower_bound(key); it != m_claims.end() && it->first.compare(0, key.size(), key) == 0; ++it) {
    out.push_back(&it->second);
  }
  return out;
}

std::vector<std::string> StorageModel::class_names() const
{
  std::vector<std::string> out;
  for (const auto& [name, sc] : m_classes) {
    out.push_back(name);
  }
  return out;
}

const std::vector<std::string>& StorageModel::scenario_zones() const
{
  if (!m_zones) {
    auto zones = m_zones_source ? m_zones_source() : std::vector<std::string>{};
    std::sort(zones.begin(), zones.end());
    zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
    m_zones = std::move(zones);
  }
  return *m_zones;
}

const StorageClassInfo* StorageModel::class_of(const ClaimInfo& claim) const
{
  if (m_classes.empty()) {
    static const StorageClassInfo k_eks_default = [] {
      StorageClassInfo sc;
      sc.provisioner = "ebs.csi.aws.com";
      sc.wait_for_first_consumer = true;
      return sc;
    }();
    return claim.storage_class && claim.storage_class->empty() ? nullptr : &k_eks_default;
  }
  if (claim.storage_class) {
    const auto it = m_classes.find(*claim.storage_class);
    return it == m_classes.end() ? nullptr : &it->second;
  }
  const StorageClassInfo* best = nullptr;
  for (const auto& [name, sc] : m_classes) { // name order: the first of equal timestamps wins
    if (sc.is_default && (best == nullptr || sc.created > best->created)) {
      best = &sc;
    }
  }
  return best;
}

ClaimEffect StorageModel::resolve(const ClaimInfo& claim, ClaimOrigin origin, const std::string& label) const
{
  ClaimEffect e;
  const auto fail = [&](std::string_view why) {
    e.error = fmt::format("{}: {}", label, why);
    return e;
  };
  if (claim.deleting) {
    return fail("persistentvolumeclaim is being deleted");
  }
  if (claim.lost) {
    return fail("persistentvolumeclaim bound to non-existent persistentvolume");
  }
  if (!claim.volume_name.empty()) {
    const auto it = m_volumes.find(claim.volume_name);
    if (it == m_volumes.end()) {
      return e;
    }
    if (it->second.deleting) {
      return fail("persistentvolume is being deleted");
    }
    e.alternatives = volume_alternatives(it->second);
    return e;
  }
  if (claim.storage_class && claim.storage_class->empty()) {
    return fail("unbound pvc must define a storage class");
  }
  const StorageClassInfo* sc = class_of(claim);
  if (sc == nullptr) {
    return claim.storage_class ? e : fail("unbound pvc must define a storage class (no default StorageClass)");
  }
  if (!sc->wait_for_first_consumer) {
    if (origin == ClaimOrigin::document) {
      return fail("pvc with immediate volume binding mode must be bound");
    }
    if (!zonal_provisioner(sc->provisioner)) {
      e.alternatives = sc->allowed_topologies; // (EFS and the like: reachable from every zone)
      return e;
    }
    e.zones = allowed_zones(*sc);
    if (e.zones.empty()) {
      e.zones = scenario_zones();
    }
    if (e.zones.empty()) {
      // (capsim) Without spec.zones the zones are the catalog's, which the reader does not
      // load: the volume is made where the pod first binds, as with WaitForFirstConsumer.
      e.alternatives = sc->allowed_topologies;
      e.binds_on_schedule = origin != ClaimOrigin::ephemeral;
    }
    return e;
  }
  e.alternatives = sc->allowed_topologies;
  e.binds_on_schedule = origin != ClaimOrigin::ephemeral && zonal_provisioner(sc->provisioner);
  return e;
}

std::vector<model::NodeSelectorTerm> merge_alternatives(const std::vector<model::NodeSelectorTerm>& alternatives,
                                                        const std::vector<model::NodeSelectorTerm>& volume)
{
  // Beyond the limit the caller refuses the pod (k_max_volume_alternatives): one more than the
  // limit of each side is enough to tell, and keeps hostile input from multiplying out.
  const auto capped = [](const std::vector<model::NodeSelectorTerm>& v) {
    return std::min(v.size(), k_max_volume_alternatives + 1);
  };
  if (volume.empty()) {
    return alternatives;
  }
  if (alternatives.empty()) {
    return {volume.begin(), volume.begin() + static_cast<std::ptrdiff_t>(capped(volume))};
  }
  std::vector<model::Requirements> incoming;
  for (std::size_t j = 0; j < capped(volume); ++j) {
    incoming.push_back(to_requirements(volume[j]));
  }
  std::vector<model::NodeSelectorTerm> compatible;
  std::vector<model::NodeSelectorTerm> all;
  for (std::size_t i = 0; i < capped(alternatives); ++i) {
    const auto existing = to_requirements(alternatives[i]);
    for (const auto& v : incoming) {
      const bool ok = existing.intersects_ok(v);
      if (ok ? compatible.size() > k_max_volume_alternatives
             : !compatible.empty() || all.size() > k_max_volume_alternatives) {
        continue;
      }
      auto merged = existing;
      merged.add(v);
      (ok ? compatible : all).push_back(model::NodeSelectorTerm{std::move(merged.items())});
    }
  }
  return compatible.empty() ? all : compatible;
}

const std::string& pick_zone(std::string_view claim_name, const std::vector<std::string>& zones)
{
  return zones[hash_name(claim_name) % zones.size()];
}

std::string per_pod_claim_name(const model::PerPodClaim& claim, std::string_view pod_name)
{
  return claim.ephemeral ? fmt::format("{}-{}", pod_name, claim.name) : fmt::format("{}-{}", claim.name, pod_name);
}

void apply_claim(model::PodSpec& spec, const ClaimEffect& effect, std::string_view claim_name)
{
  if (!effect.error.empty() && spec.volume_error.empty()) {
    spec.volume_error = effect.error;
  }
  spec.volume_binds_on_schedule = spec.volume_binds_on_schedule || effect.binds_on_schedule;
  if (!effect.zones.empty()) {
    const auto in_zone = model::Requirement::make(std::string(model::labels::k_zone), model::Operator::in,
                                                  {pick_zone(claim_name, effect.zones)});
    spec.volume_affinity = merge_alternatives(spec.volume_affinity, {model::NodeSelectorTerm{{in_zone}}});
  } else {
    spec.volume_affinity = merge_alternatives(spec.volume_affinity, effect.alternatives);
  }
}

model::PodSpecPtr PerPodSpecs::get(const model::PodSpecPtr& base, const std::vector<model::PerPodClaim>& claims,
                                   std::string_view pod_name)
{
  std::vector<std::string> chosen;
  chosen.reserve(claims.size());
  for (const auto& c : claims) {
    chosen.push_back(pick_zone(per_pod_claim_name(c, pod_name), c.zones));
  }
  auto& slot = m_specs[{base.get(), chosen}];
  if (!slot.second) {
    auto spec = std::make_shared<model::PodSpec>(*base);
    for (const auto& c : claims) {
      ClaimEffect e;
      e.zones = c.zones;
      apply_claim(*spec, e, per_pod_claim_name(c, pod_name));
    }
    slot = {base, std::move(spec)};
  }
  return slot.second;
}

// ----------------------------------------------------------------------------------------------
// Reading

ClaimInfo read_claim(YamlReader& r, const YAML::Node& root, const std::string& name, const std::string& namespace_,
                     const std::string& what)
{
  ClaimInfo c;
  c.name = name;
  c.namespace_ = namespace_;
  r.check_fields(root, what, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, Strictness::lenient);
  const auto md = child(root, "metadata");
  check_metadata(r, md, what);
  c.deleting = present(child(md, "deletionTimestamp"));
  if (const auto spec = child(root, "spec"); present(spec)) {
    const std::string sw = what + ".spec";
    if (r.check_fields(spec, sw, {"storageClassName", "volumeName"},
                       {"accessModes", "resources", "selector", "volumeMode", "dataSource", "dataSourceRef",
                        "volumeAttributesClassName"},
                       Strictness::lenient)) {
      c.storage_class = read_class_name(r, spec, sw, c.storage_class_at);
      if (const auto vn = child(spec, "volumeName"); present(vn)) {
        if (auto v = r.string(vn, sw + ".volumeName")) {
          c.volume_name = *v;
          c.volume_name_at = r.location(vn);
        }
      }
    }
  }
  const auto phase = child(child(root, "status"), "phase");
  c.lost = present(phase) && phase.IsScalar() && phase.Scalar() == "Lost";
  return c;
}

VolumeInfo read_volume(YamlReader& r, const YAML::Node& root, const std::string& name, const std::string& what)
{
  VolumeInfo v;
  v.name = name;
  r.check_fields(root, what, {"apiVersion", "kind", "metadata", "spec"}, {"status"}, Strictness::lenient);
  const auto md = child(root, "metadata");
  check_metadata(r, md, what);
  v.deleting = present(child(md, "deletionTimestamp"));
  const auto spec = child(root, "spec");
  const std::string sw = what + ".spec";
  if (!present(spec)
      || !r.check_fields(spec, sw, {"nodeAffinity", "local", "hostPath"},
                         {"capacity", "accessModes", "claimRef", "persistentVolumeReclaimPolicy", "storageClassName",
                          "volumeMode", "mountOptions", "csi", "awsElasticBlockStore", "nfs",
                          "volumeAttributesClassName"},
                         Strictness::lenient)) {
    return v;
  }
  v.local = present(child(spec, "local")) || present(child(spec, "hostPath"));
  const auto na = child(spec, "nodeAffinity");
  if (!present(na) || !r.check_fields(na, sw + ".nodeAffinity", {"required"})) {
    return v;
  }
  const auto req = child(na, "required");
  const std::string rw = sw + ".nodeAffinity.required";
  if (!present(req) || !r.check_fields(req, rw, {"nodeSelectorTerms"})) {
    return v;
  }
  const auto terms = child(req, "nodeSelectorTerms");
  if (!present(terms) || !terms.IsSequence() || terms.size() == 0) {
    r.error(present(terms) ? terms : req, fmt::format("'{}' needs at least one entry in 'nodeSelectorTerms'", rw));
    return v;
  }
  for (const auto& t : terms) {
    if (auto term = read_node_selector_term(r, t, rw + ".nodeSelectorTerms")) {
      v.node_affinity.push_back(std::move(*term));
    }
  }
  return v;
}

StorageClassInfo read_storage_class(YamlReader& r, const YAML::Node& root, const std::string& name,
                                    const std::string& what)
{
  StorageClassInfo sc;
  sc.name = name;
  r.check_fields(root, what,
                 {"apiVersion", "kind", "metadata", "provisioner", "volumeBindingMode", "allowedTopologies"},
                 {"parameters", "reclaimPolicy", "mountOptions", "allowVolumeExpansion"}, Strictness::lenient);
  const auto md = child(root, "metadata");
  check_metadata(r, md, what);
  const auto annotations = r.string_map(child(md, "annotations"), what + ".metadata.annotations");
  for (const auto* key :
       {"storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"}) {
    if (const auto it = annotations.find(key); it != annotations.end() && it->second == "true") {
      sc.is_default = true;
    }
  }
  if (const auto ct = child(md, "creationTimestamp"); present(ct)) {
    if (auto text = r.string(ct, what + ".metadata.creationTimestamp")) {
      if (auto ms = parse_rfc3339_ms(*text)) {
        sc.created = *ms;
      } else {
        r.error(ct, fmt::format("'{}.metadata.creationTimestamp': '{}' is not an RFC 3339 time (e.g. "
                                "2026-11-29T12:00:00Z)",
                                what, *text));
      }
    }
  }
  if (const auto p = child(root, "provisioner"); present(p)) {
    sc.provisioner = r.string(p, what + ".provisioner").value_or("");
  } else {
    r.error(root, fmt::format("{} needs a 'provisioner'", what));
  }
  if (const auto mode = child(root, "volumeBindingMode"); present(mode)) {
    const auto v = r.choice(mode, what + ".volumeBindingMode", {"Immediate", "WaitForFirstConsumer"});
    sc.wait_for_first_consumer = v == "WaitForFirstConsumer";
  }
  const auto topologies = child(root, "allowedTopologies");
  const std::string tw = what + ".allowedTopologies";
  if (present(topologies) && r.expect_sequence(topologies, tw)) {
    for (const auto& term : topologies) {
      if (!r.check_fields(term, tw, {"matchLabelExpressions"})) {
        continue;
      }
      const auto exprs = child(term, "matchLabelExpressions");
      const std::string ew = tw + ".matchLabelExpressions";
      if (!present(exprs) || !r.expect_sequence(exprs, ew)) {
        continue;
      }
      model::NodeSelectorTerm out;
      bool ok = true;
      for (const auto& e : exprs) {
        if (!r.check_fields(e, ew, {"key", "values"})) {
          ok = false;
          continue;
        }
        const auto key = child(e, "key");
        const auto values = child(e, "values");
        if (!present(key) || !present(values)) {
          r.error(e, fmt::format("'{}' entry needs a 'key' and 'values'", ew));
          ok = false;
          continue;
        }
        auto k = r.string(key, ew + ".key");
        auto list = r.string_list(values, ew + ".values");
        if (k && k->empty()) {
          r.error(key, fmt::format("'{}.key' must not be empty", ew));
        }
        if (list.empty()) {
          r.error(values, fmt::format("'{}.values' must list at least one value", ew));
        }
        if (!k || k->empty() || list.empty()) {
          ok = false;
          continue;
        }
        out.requirements.push_back(model::Requirement::make(*k, model::Operator::in, std::move(list)));
      }
      if (ok && !out.requirements.empty()) {
        sc.allowed_topologies.push_back(std::move(out));
      }
    }
  }
  return sc;
}

void read_claim_template_spec(YamlReader& r, const YAML::Node& spec, const std::string& what, ClaimInfo& out)
{
  if (!present(spec)) {
    return;
  }
  if (r.check_fields(spec, what, {"storageClassName"},
                     {"accessModes", "resources", "selector", "volumeMode", "dataSource", "dataSourceRef",
                      "volumeAttributesClassName", "volumeName"},
                     Strictness::lenient)) {
    out.storage_class = read_class_name(r, spec, what, out.storage_class_at);
  }
}

} // namespace capsim::io
