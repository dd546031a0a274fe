#pragma once

#include "core/catalog/catalog.hpp"
#include "core/cluster/cluster.hpp"
#include "core/model/scenario.hpp"

namespace capsim::sim {

// What a v1 Node given at t=0 (a scenario's Node document or a kubectl dump) says about itself:
// labels (plus its instance type's), taints, zone, capacity type (on-demand when unlabelled),
// allocatable (status.allocatable wins over the catalog's; status.capacity for a type the
// catalog lacks), list price and the hostname label. Lifecycle, timestamps and ownership are
// the caller's: the engine and `capsim preview` set them differently.
[[nodiscard]] cluster::NodeState node_from_initial(const model::InitialNode& in, const catalog::Catalog& catalog);

} // namespace capsim::sim
