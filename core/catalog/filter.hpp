#pragma once

#include "core/base/diagnostics.hpp"
#include "core/catalog/instance_type.hpp"
#include "core/model/requirements.hpp"

#include <string>
#include <string_view>
#include <vector>

// Filtering instance types the way a NodePool's requirements select them, for `capsim catalog`.
namespace capsim::catalog {

// One requirement written as "KEY OP [V1,V2,...]" (`--where`): OP is In, NotIn, Exists,
// DoesNotExist, Gt or Lt (also Gte, Lte); In/NotIn take one or more comma-separated values,
// Gt/Lt exactly one integer, Exists/DoesNotExist none. Example:
// "karpenter.k8s.aws/instance-family In m5,c6i". Throws InputError at `where`.
[[nodiscard]] model::Requirement parse_where(std::string_view text, const SourceLocation& where);

// The requirements of a NodePool manifest (spec.template.spec.requirements of the first
// `kind: NodePool` document in `yaml_text`; a stream with one document and no kind is read as
// a NodePool too). Each item {key, operator, values, minValues}. Throws InputError with
// `path`:LINE:COL for malformed YAML or requirements.
[[nodiscard]] model::Requirements parse_nodepool_requirements(std::string_view yaml_text, const std::string& path);

// The offerings of `it` compatible with the zone / capacity-type part of `reqs`, in listed order.
[[nodiscard]] std::vector<Offering> compatible_offerings(const InstanceType& it, const model::Requirements& reqs);

// Karpenter's instance-type filter: the type's requirements intersect `reqs` (keys the type
// does not define are allowed) and at least one offering is compatible.
[[nodiscard]] bool matches(const InstanceType& it, const model::Requirements& reqs);

} // namespace capsim::catalog
